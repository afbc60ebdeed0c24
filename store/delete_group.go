package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GroupRestoreWindow is how long a deleted group can be restored; after it
// the purge job (PurgeDeletedGroups) removes every item of it.
const GroupRestoreWindow = 30 * 24 * time.Hour

// DeleteGroup deletes the group whole, with its GROUP_DELETED event by
// actor: its ledger and METADATA carry deletedAt (written together), so
// that from this transaction on every read finds no group (liveGroup) and
// every write is refused as for a group that does not exist; METADATA also
// carries purgeAfter and the GSI1 keys the purge finds it by. Nothing about
// balances is refused: the group goes as it is. An archived group may be
// deleted. It returns the group as deleted.
func (s *Store) DeleteGroup(ctx context.Context, groupID, actor string) (Group, error) {
	now := s.stamp()
	at, after := formatTime(now), formatTime(now.Add(GroupRestoreWindow))
	ev := Event{GroupID: groupID, Type: EventGroupDeleted, ActorID: actor, At: now, Subject: Subject{Kind: SubjectGroup, ID: groupID}}
	err := s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.writesArchived()
		l.set = append(l.set, attrDeletedAt+" = "+l.value(str(at)))
		return []types.TransactWriteItem{s.metadataUpdate(groupID,
			"SET "+attrDeletedAt+" = :at, "+attrPurgeAfter+" = :after, "+attrGSI1PK+" = :pk, "+attrGSI1SK+" = :sk",
			map[string]types.AttributeValue{":at": str(at), ":after": str(after), ":pk": str(purgeGSI1PK), ":sk": str(purgeGSI1SK(after, groupID))})}, nil
	})
	switch {
	case condFailedAt(err, 0) || condFailedAt(err, 1):
		return Group{}, notFoundf("group %s", groupID)
	case err != nil:
		return Group{}, fmt.Errorf("delete group: %w", err)
	}
	g, err := s.DeletedGroup(ctx, groupID)
	if err != nil || g == nil {
		return Group{}, orNotFound(err, groupID)
	}
	return *g, nil
}

// RestoreGroup brings a deleted group back as it was (archived, if it was),
// with its GROUP_RESTORED event by actor, within GroupRestoreWindow of its
// deletion and before its purge has begun; otherwise the group is not found.
// A group that is not deleted stays as it is.
func (s *Store) RestoreGroup(ctx context.Context, groupID, actor string) (Group, error) {
	g, err := s.DeletedGroup(ctx, groupID)
	switch {
	case err != nil:
		return Group{}, err
	case g == nil || (g.PurgeAfter != nil && !s.now().Before(*g.PurgeAfter)):
		return Group{}, notFoundf("group %s", groupID)
	case g.DeletedAt == nil:
		return *g, nil
	}
	ev := Event{GroupID: groupID, Type: EventGroupRestored, ActorID: actor, At: s.stamp(), Subject: Subject{Kind: SubjectGroup, ID: groupID}}
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.writesArchived()
		l.writesDeleted()
		l.remove = append(l.remove, attrDeletedAt)
		l.conds = append(l.conds, attrExists(attrDeletedAt))
		meta := s.metadataUpdate(groupID, "REMOVE "+attrDeletedAt+", "+attrPurgeAfter+", "+attrGSI1PK+", "+attrGSI1SK,
			map[string]types.AttributeValue{":now": str(formatTime(s.now()))})
		meta.Update.ConditionExpression = aws.String(condItemExists + " AND " + attrNotExists(attrPurging) + " AND " + attrPurgeAfter + " > :now")
		return []types.TransactWriteItem{meta}, nil
	})
	switch {
	case condFailedAt(err, 0) || condFailedAt(err, 1):
		// Restored by someone else meanwhile, or its purge has begun.
		g, err := s.CurrentGroup(ctx, groupID)
		if err != nil || g == nil {
			return Group{}, orNotFound(err, groupID)
		}
		return *g, nil
	case err != nil:
		return Group{}, fmt.Errorf("restore group: %w", err)
	}
	return s.currentGroupOrNotFound(ctx, groupID)
}

// orNotFound is err, or ErrNotFound naming the group when there is none.
func orNotFound(err error, groupID string) error {
	if err != nil {
		return err
	}
	return notFoundf("group %s", groupID)
}
