package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SeriesPrefix starts every recurring expense's id ("rec_" and 32 hex
// digits), which tells it apart from the UUIDs of groups and expenses.
const SeriesPrefix = "rec_"

// CreateSeries writes a new recurring expense (version 1, next due on its
// StartsOn) with its RECURRING_CREATED event, on condition that the group
// exists. The template must have been checked as a new expense is; its
// first occurrence is created by the scheduler's next run once StartsOn has
// come (a start in the past catches up then).
func (s *Store) CreateSeries(ctx context.Context, sr Series) (Series, error) {
	sr.ID = prefixedID(SeriesPrefix, s.newID())
	sr.CreatedAt = s.stamp()
	sr.Version, sr.Done, sr.Created, sr.Paused = 1, 0, 0, false
	sr.Interval = max(sr.Interval, 1)
	sr.NextOn = sr.StartsOn
	sr.Template = seriesTemplate(sr.Template, sr.ID)
	if n := len(sr.Template.InvolvedUsers()); n > MaxSeriesParticipants {
		return Series{}, fmt.Errorf("%w: %d participants, the limit for a recurring expense is %d", ErrTooManyItems, n, MaxSeriesParticipants)
	}
	put, err := s.putNew(sr.record(), "recurring expense")
	if err != nil {
		return Series{}, err
	}
	ev := seriesEvent(EventRecurringCreated, &sr, sr.CreatedBy, sr.CreatedAt, seriesChanges(nil, &sr))
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{put}, nil
	})
	switch {
	case condFailedAt(err, 0):
		return Series{}, notFoundf("group %s", sr.GroupID)
	case err != nil:
		return Series{}, fmt.Errorf("create recurring expense: %w", err)
	}
	return sr, nil
}

// seriesTemplate readies a template expense of the series seriesID to be
// stored: its payers and main payer set as an expense's are, its splits and
// payments under the series' id, its slices its own.
func seriesTemplate(t Expense, seriesID string) Expense {
	t.Splits, t.Payers = slices.Clone(t.Splits), slices.Clone(t.Payers)
	t.ID, t.SpentAt, t.SeriesID = seriesID, t.CreatedAt, ""
	t.own()
	return t
}
