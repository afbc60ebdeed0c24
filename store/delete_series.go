package store

import "context"

// DeleteSeries deletes a recurring expense, with its RECURRING_DELETED
// event: no occurrence follows, and those already created stay (as
// ordinary expenses, still naming the series' id). It returns the series as
// it was.
func (s *Store) DeleteSeries(ctx context.Context, groupID, seriesID, actor string) (Series, error) {
	return s.changeSeries(ctx, groupID, seriesID, EventRecurringDeleted, actor, func(Series) (*Series, error) {
		return nil, nil
	})
}
