package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SeriesEdit is a change to a recurring expense's future occurrences:
// fields left nil keep their values.
type SeriesEdit struct {
	Template *Expense // replaces the template, checked as a new expense is
	EndsOn   *time.Time
	NoEnd    bool // removes EndsOn
	Count    *int // 0 removes the limit
}

// UpdateSeries changes a recurring expense's future occurrences (those
// already created stay as they are), on condition that its version is still
// expectedVersion (a *VersionConflict otherwise), with its RECURRING_UPDATED
// event. A change that changes nothing returns the series as it is. A
// finished series that the change extends goes on from today, without the
// days in between.
func (s *Store) UpdateSeries(ctx context.Context, groupID, seriesID string, expectedVersion int, edit SeriesEdit, actor string) (Series, error) {
	return s.changeSeries(ctx, groupID, seriesID, EventRecurringUpdated, actor, func(cur Series) (*Series, error) {
		today := s.seriesToday(&cur)
		if cur.Version != expectedVersion {
			return nil, &VersionConflict{What: "recurring expense", Current: cur.Version}
		}
		next := cur
		if edit.Template != nil {
			next.Template = seriesTemplate(*edit.Template, cur.ID)
			next.Template.CreatedAt = cur.CreatedAt
			if n := len(next.Template.InvolvedUsers()); n > MaxSeriesParticipants {
				return nil, fmt.Errorf("%w: %d participants, the limit for a recurring expense is %d", ErrTooManyItems, n, MaxSeriesParticipants)
			}
		}
		if edit.EndsOn != nil {
			end := *edit.EndsOn
			next.EndsOn = &end
		}
		if edit.NoEnd {
			next.EndsOn = nil
		}
		if edit.Count != nil {
			next.Count = *edit.Count
		}
		if !cur.Finished() || next.Finished() {
			return &next, nil
		}
		// A finished series given a later end or a larger count goes on from
		// today: the days it was finished are skipped, as for a resume.
		for next.NextOn.Before(today) && !next.Finished() {
			next = next.skipped()
		}
		return &next, nil
	})
}

// seriesAttempts bounds how often a member's change starts again because
// the scheduler advanced the series in between.
const seriesAttempts = 5

// changeSeries writes what change makes of the current series (nil: delete
// it), with the event of type t, in one transaction conditioned on the
// version and next day it read. When only the scheduler moved the series
// meanwhile (its version is the same), the change starts again from the
// series as it is now; a member's change in between fails change's own
// version check. A change that changes nothing writes nothing.
func (s *Store) changeSeries(ctx context.Context, groupID, seriesID string, t EventType, actor string, change func(cur Series) (*Series, error)) (Series, error) {
	for range seriesAttempts {
		cur, err := s.CurrentSeries(ctx, groupID, seriesID)
		if err != nil {
			return Series{}, err
		}
		if cur == nil {
			return Series{}, notFoundf("recurring expense %s", seriesID)
		}
		next, err := change(*cur)
		if err != nil {
			return Series{}, err
		}
		changes := seriesChanges(cur, next)
		if next != nil {
			if len(changes) == 0 || next.Version == 0 {
				return *cur, nil // nothing changes (change zeroes Version to say so)
			}
			next.Version = cur.Version + 1
		}
		write, err := s.seriesWrite(cur, next, false)
		if err != nil {
			return Series{}, err
		}
		ev := seriesEvent(t, cur, actor, s.stamp(), changes)
		err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
			return []types.TransactWriteItem{write}, nil
		})
		switch {
		case condFailedAt(err, 1):
			continue // moved since it was read: read it again
		case condFailedAt(err, 0):
			return Series{}, notFoundf("group %s", groupID)
		case err != nil:
			return Series{}, fmt.Errorf("change recurring expense: %w", err)
		}
		if next == nil {
			return *cur, nil
		}
		return *next, nil
	}
	return Series{}, errors.Join(ErrConflict, fmt.Errorf("the recurring expense is changing too often right now; retry"))
}

// seriesWrite is the transaction item that replaces the series cur by next
// (nil: deletes it), on condition that it is still at cur's version and
// next day, and, when paused says so, that it is not paused.
func (s *Store) seriesWrite(cur, next *Series, notPaused bool) (types.TransactWriteItem, error) {
	cond := attrVersion + " = :v AND " + attrNextOn + " = :next"
	values := map[string]types.AttributeValue{":v": number(int64(cur.Version)), ":next": str(FormatDay(cur.NextOn))}
	if notPaused {
		cond += " AND " + attrPaused + " = :false"
		values[":false"] = &types.AttributeValueMemberBOOL{Value: false}
	}
	if next == nil {
		return types.TransactWriteItem{Delete: &types.Delete{
			TableName: &s.table, Key: tableKey(groupPK(cur.GroupID), seriesSK(cur.ID)),
			ConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
		}}, nil
	}
	put, err := s.putNew(next.record(), "recurring expense")
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	put.Put.ConditionExpression, put.Put.ExpressionAttributeValues = aws.String(cond), values
	return put, nil
}
