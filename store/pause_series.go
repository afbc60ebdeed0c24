package store

import "context"

// PauseSeries stops a recurring expense's occurrences until it is resumed,
// with its RECURRING_PAUSED event; a paused series stays as it is.
func (s *Store) PauseSeries(ctx context.Context, groupID, seriesID, actor string) (Series, error) {
	return s.changeSeries(ctx, groupID, seriesID, EventRecurringPaused, actor, func(cur Series) (*Series, error) {
		if cur.Paused {
			cur.Version = 0 // unchanged: nothing to write
			return &cur, nil
		}
		cur.Paused = true
		return &cur, nil
	})
}

// ResumeSeries starts a paused recurring expense again, with its
// RECURRING_RESUMED event. The occurrences that fell while it was paused
// are skipped, not caught up: the next is the first due today or later.
// An active series stays as it is.
func (s *Store) ResumeSeries(ctx context.Context, groupID, seriesID, actor string) (Series, error) {
	return s.changeSeries(ctx, groupID, seriesID, EventRecurringResumed, actor, func(cur Series) (*Series, error) {
		if !cur.Paused {
			cur.Version = 0 // unchanged: nothing to write
			return &cur, nil
		}
		cur.Paused = false
		today := s.seriesToday(&cur)
		for cur.NextOn.Before(today) && !cur.Finished() {
			cur = cur.skipped()
		}
		return &cur, nil
	})
}
