package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DefaultCatchUp is how many occurrences of one series a run creates at
// most unless told otherwise: a month of a daily series after downtime.
const DefaultCatchUp = 31

// RecurringRun is what one run of the recurring expenses did.
type RecurringRun struct {
	Due     int // series found due
	Created int // occurrences created
	Paused  int // series paused because nobody was left
}

// RunRecurring creates the occurrences that have fallen due by today, in
// each group's time zone (the rent of the 1st appears when the 1st begins
// where the group lives): it finds the series due by the latest day it is
// anywhere (the store clock's UTC day plus one) with one Query of GSI1 per
// shard (DUE#<shard>, GSI1SK <= "<day>~"), never a Scan, and gives each
// series up to catchUp occurrences, oldest first, each dated on its own day.
// A series with more due catches up further at the next run.
//
// Exactly once: each occurrence is one transaction of the expense's items,
// its marker RECUR#<seriesId>#<day> (on condition that it is absent) and the
// series moved to its next day (on condition that it is still at the day,
// version and pause state it was read at). Another instance doing the same
// run, a retry or a restart fails those conditions and writes nothing; that
// series is then left to whoever won, until the next run. Errors of one
// series do not stop the others; they are returned together.
func (s *Store) RunRecurring(ctx context.Context, catchUp int) (RecurringRun, error) {
	if catchUp <= 0 {
		catchUp = DefaultCatchUp
	}
	now := s.now()
	latest := Today(now).AddDate(0, 0, 1) // the day somewhere east (UTC+14 at most)
	var run RecurringRun
	var errs []error
	for shard := range dueShards {
		items, err := s.collect(ctx, listQuery{
			list: "due", index: indexGSI1, keyCond: gsi1UpToCond, forward: true,
			values: map[string]types.AttributeValue{":pk": str(dueGSI1PK(shard)), ":to": str(upTo(FormatDay(latest)))},
		}, nil, math.MaxInt32)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, it := range items {
			nextOn, groupID, seriesID, ok := parseDueGSI1SK(keyAttr(it, attrGSI1SK))
			if !ok {
				continue
			}
			if today, err := DayIn(now, keyAttr(it, attrSeriesZone)); err == nil && nextOn > today {
				continue // its day has not begun where the group lives: no read
			}
			created, paused, due, err := s.advanceSeries(ctx, groupID, seriesID, now, catchUp)
			if due {
				run.Due++
			}
			run.Created += created
			if paused {
				run.Paused++
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("recurring expense %s: %w", seriesID, err))
			}
			if ctx.Err() != nil {
				return run, errors.Join(append(errs, ctx.Err())...)
			}
		}
	}
	return run, errors.Join(errs...)
}

// advanceSeries creates up to catchUp of the series' occurrences due by
// today in its group's time zone, or pauses it when nobody is left to pay or
// to share. due reports whether anything was due there.
func (s *Store) advanceSeries(ctx context.Context, groupID, seriesID string, now time.Time, catchUp int) (created int, paused, due bool, err error) {
	cur, err := s.CurrentSeries(ctx, groupID, seriesID)
	if err != nil || cur == nil || !cur.Active() || cur.NextOn.After(Today(now).AddDate(0, 0, 1)) {
		return 0, false, false, err // the index lags: already moved on, paused or deleted
	}
	g, err := s.CurrentGroup(ctx, groupID)
	if err != nil || g == nil || g.Archived() {
		// Deleted, or archived: nothing runs; unarchiving skips the days
		// that fell meanwhile (UnarchiveGroup).
		return 0, false, false, err
	}
	today, err := localToday(now, g.TimeZone)
	if err != nil || cur.NextOn.After(today) {
		return 0, false, false, err // its day has not begun where the group lives
	}
	created, paused, err = s.createOccurrences(ctx, g, cur, today, catchUp)
	return created, paused, true, err
}

// localToday is the day it is at now in the time zone named zone, as
// Today gives days (midnight UTC of that date).
func localToday(now time.Time, zone string) (time.Time, error) {
	day, err := DayIn(now, zone)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(DayLayout, day)
}

// seriesToday is the day it is now where the series' group lives (its zone
// as the series last recorded it): what a resume or an extension counts
// from, as the scheduler does.
func (s *Store) seriesToday(sr *Series) time.Time {
	today, err := localToday(s.now(), sr.Zone)
	if err != nil {
		return Today(s.now())
	}
	return today
}

// createOccurrences creates up to catchUp of the series' occurrences due by
// today, one transaction each.
func (s *Store) createOccurrences(ctx context.Context, g *Group, cur *Series, today time.Time, catchUp int) (created int, paused bool, err error) {
	groupID, seriesID := g.ID, cur.ID
	members, err := s.availableMembers(ctx, &cur.Template)
	if err != nil {
		return 0, false, err
	}
	for created < catchUp && cur.Active() && !cur.NextOn.After(today) {
		e, ok, err := occurrenceExpense(cur, cur.NextOn, g.TimeZone, members)
		if err != nil {
			return created, false, err
		}
		if !ok {
			return created, true, s.pauseDeserted(ctx, cur)
		}
		next := cur.advanced()
		next.Zone = g.TimeZone // the zone the group has now, for the next look at the index
		marker, err := s.putNew(occurrenceRecord{
			itemKey:  itemKey{PK: groupPK(groupID), SK: occurrenceSK(seriesID, FormatDay(cur.NextOn))},
			SeriesID: seriesID, Day: FormatDay(cur.NextOn),
		}, "occurrence")
		if err != nil {
			return created, false, err
		}
		move, err := s.seriesWrite(cur, &next, true)
		if err != nil {
			return created, false, err
		}
		_, err = s.createExpense(ctx, g.Title, e, "", []types.TransactWriteItem{marker, move})
		switch {
		case IsCondCheckFailed(err) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrArchived):
			// Another instance created it, a member changed the series,
			// someone involved left, or the group was archived or deleted
			// meanwhile: the next run reads it anew.
			return created, false, nil
		case err != nil:
			return created, false, err
		}
		created++
		cur = &next
	}
	return created, false, nil
}

// availableMembers maps the template's payers and beneficiaries to the
// members an occurrence names in their place, read strongly consistent: a
// member who may be named in an expense stands for themself; a placeholder
// someone claimed (or is claiming) for the member who claimed it; anyone
// else (who left) for nobody.
func (s *Store) availableMembers(ctx context.Context, t *Expense) (map[string]*Member, error) {
	users := t.InvolvedUsers()
	ms, err := s.getMembers(ctx, memberKeys(t.GroupID, users), true)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Member, len(ms))
	var claimed, claimants []string
	for _, m := range ms {
		switch {
		case m.Available():
			out[m.UserID] = m
		case m != nil && m.ClaimedBy != "":
			claimed, claimants = append(claimed, m.UserID), append(claimants, m.ClaimedBy)
		}
	}
	if len(claimed) == 0 {
		return out, nil
	}
	cs, err := s.getMembers(ctx, memberKeys(t.GroupID, claimants), true)
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		if c.Available() {
			out[claimed[i]] = c
		}
	}
	return out, nil
}

func memberKeys(groupID string, users []string) []MemberKey {
	keys := make([]MemberKey, len(users))
	for i, u := range users {
		keys[i] = MemberKey{GroupID: groupID, UserID: u}
	}
	return keys
}

// pauseDeserted pauses a series nobody is left to pay or to share, with its
// RECURRING_PAUSED event (by the series' creator, saying why), on the same
// conditions as an occurrence.
func (s *Store) pauseDeserted(ctx context.Context, cur *Series) error {
	next := *cur
	next.Paused, next.Version = true, cur.Version+1
	write, err := s.seriesWrite(cur, &next, true)
	if err != nil {
		return err
	}
	changes := append(seriesChanges(cur, &next), Change{Field: "reason", After: optionalString(ReasonNobodyLeft)})
	ev := seriesEvent(EventRecurringPaused, cur, cur.CreatedBy, s.stamp(), changes)
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{write}, nil
	})
	if IsCondCheckFailed(err) || errors.Is(err, ErrArchived) || errors.Is(err, ErrNotFound) {
		return nil // changed, archived or deleted meanwhile: the next run looks again
	}
	return err
}

// ReasonNobodyLeft is the reason a series paused by the scheduler gives in
// its event: every payer or every beneficiary has left the group.
const ReasonNobodyLeft = "nobody is left to pay or to share"
