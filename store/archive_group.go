package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An archived group is read-only: its ledger and METADATA carry archivedAt
// (written together), and every write's ledger edit requires it absent
// (ledgerEdit), so that every write is refused with ErrArchived in its own
// transaction, whichever write it is. Reads go on as before. The scheduler
// creates no occurrence of its recurring expenses, and the days that fall
// while it is archived are skipped, not caught up, when it is unarchived.

// maxUnarchiveSeries bounds the recurring expenses one unarchive moves past
// the days the group was archived, in its one transaction.
const maxUnarchiveSeries = maxTransactItems - 3

// ArchiveGroup makes the group read-only, with its GROUP_ARCHIVED event by
// actor. An archived group stays as it is (no event): archiving twice is
// not an error.
func (s *Store) ArchiveGroup(ctx context.Context, groupID, actor string) (Group, error) {
	now := s.stamp()
	at := formatTime(now)
	ev := Event{GroupID: groupID, Type: EventGroupArchived, ActorID: actor, At: now, Subject: Subject{Kind: SubjectGroup, ID: groupID}}
	err := s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.set = append(l.set, attrArchivedAt+" = "+l.value(str(at)))
		return []types.TransactWriteItem{s.metadataUpdate(groupID, "SET "+attrArchivedAt+" = :at", map[string]types.AttributeValue{":at": str(at)})}, nil
	})
	switch {
	case errors.Is(err, ErrArchived):
		return s.currentGroupOrNotFound(ctx, groupID)
	case condFailedAt(err, 0) || condFailedAt(err, 1):
		return Group{}, notFoundf("group %s", groupID)
	case err != nil:
		return Group{}, fmt.Errorf("archive group: %w", err)
	}
	return s.currentGroupOrNotFound(ctx, groupID)
}

// UnarchiveGroup makes an archived group writable again, with its
// GROUP_UNARCHIVED event by actor. In the same transaction every active
// recurring expense of the group whose next day has passed moves on to its
// first day from today (in the group's zone), as a resumed one does: the
// occurrences of the days it was archived are skipped, not created late. A
// group that is not archived stays as it is.
func (s *Store) UnarchiveGroup(ctx context.Context, groupID, actor string) (Group, error) {
	for range chainAttempts {
		g, err := s.currentGroupOrNotFound(ctx, groupID)
		if err != nil || !g.Archived() {
			return g, err
		}
		moves, err := s.skipArchivedDays(ctx, g)
		if err != nil {
			return Group{}, err
		}
		ev := Event{GroupID: groupID, Type: EventGroupUnarchived, ActorID: actor, At: s.stamp(), Subject: Subject{Kind: SubjectGroup, ID: groupID}}
		err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
			l.writesArchived()
			l.remove = append(l.remove, attrArchivedAt)
			l.conds = append(l.conds, attrExists(attrArchivedAt))
			meta := s.metadataUpdate(groupID, "REMOVE "+attrArchivedAt, nil)
			return append([]types.TransactWriteItem{meta}, moves...), nil
		})
		switch {
		case condFailedAt(err, 0) || condFailedAt(err, 1):
			return s.currentGroupOrNotFound(ctx, groupID) // unarchived, or deleted, meanwhile
		case IsCondCheckFailed(err):
			continue // a recurring expense moved meanwhile: read them again
		case err != nil:
			return Group{}, fmt.Errorf("unarchive group: %w", err)
		}
		return s.currentGroupOrNotFound(ctx, groupID)
	}
	return Group{}, errChainBusy
}

// skipArchivedDays is the writes that move each active recurring expense
// of the group due before today past those days.
func (s *Store) skipArchivedDays(ctx context.Context, g Group) ([]types.TransactWriteItem, error) {
	today, err := localToday(s.now(), g.TimeZone)
	if err != nil {
		today = Today(s.now())
	}
	var moves []types.TransactWriteItem
	var errs []error
	err = eachPage(ctx, func(a PageArgs) (Page[Series], error) { return s.ListSeries(ctx, g.ID, a) }, func(cur *Series) {
		if !cur.Active() || !cur.NextOn.Before(today) {
			return
		}
		next := *cur
		for next.NextOn.Before(today) && !next.Finished() {
			next = next.skipped()
		}
		move, err := s.seriesWrite(cur, &next, true)
		errs = append(errs, err)
		moves = append(moves, move)
	})
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	if len(moves) > maxUnarchiveSeries {
		return nil, fmt.Errorf("%w: %d recurring expenses to move on at once, the most is %d", ErrTooManyItems, len(moves), maxUnarchiveSeries)
	}
	return moves, nil
}

// metadataUpdate is the transaction item that updates the group's METADATA
// item, on condition that it exists.
func (s *Store) metadataUpdate(groupID, update string, values map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(condItemExists),
		ExpressionAttributeValues: values,
	}}
}
