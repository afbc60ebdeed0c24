package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PlaceholderPrefix starts every placeholder member's id, which no Telegram
// user id can (those are digits).
const PlaceholderPrefix = "ph_"

// IsPlaceholderID reports whether a member id names a placeholder.
func IsPlaceholderID(id string) bool { return strings.HasPrefix(id, PlaceholderPrefix) }

// Attributes of a placeholder's membership that expressions name.
const (
	attrPlaceholder = "placeholder"
	attrClaimedBy   = "claimedBy"
)

// placeholderUnclaimed: a current placeholder nobody has begun to claim.
var placeholderUnclaimed = memberCurrent + " AND " + attrExists(attrPlaceholder) + " AND " + attrNotExists(attrClaimedBy)

// AddPlaceholder adds a member for someone who has not joined yet, named
// name, by the current member addedBy: an id of its own, no Telegram user,
// no entry in anyone's group list. It can pay and owe like anyone until a
// user claims it (ClaimPlaceholder). The membership, memberCount, the ledger
// and the PLACEHOLDER_ADDED event are one transaction.
func (s *Store) AddPlaceholder(ctx context.Context, groupID, name, addedBy string) (Member, error) {
	now := s.stamp()
	id := prefixedID(PlaceholderPrefix, s.newID())
	rec := memberRecord{
		itemKey: itemKey{PK: groupPK(groupID), SK: memberSK(id)},
		ID:      id, Name: name, JoinedAt: formatTime(now),
		Placeholder: true, AddedBy: addedBy, FormatVersion: formatCurrent,
	}
	put, err := s.putNew(rec, "placeholder")
	if err != nil {
		return Member{}, err
	}
	items := []types.TransactWriteItem{
		put,
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
			UpdateExpression:          aws.String("ADD " + attrMemberCount + " :one"),
			ConditionExpression:       aws.String(condItemExists),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": number(1)},
		}},
		s.memberCheck(groupID, addedBy, memberCurrent),
	}
	ev := Event{
		GroupID: groupID, Type: EventPlaceholderAdded, ActorID: addedBy, At: now,
		Subject: Subject{Kind: SubjectMember, ID: id}, Changes: []Change{{Field: FieldName, After: text(personRef(id, name))}},
	}
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.addMember(id)
		return items, nil
	})
	switch {
	case condFailedAt(err, 0) || condFailedAt(err, 2) || condFailedAt(err, 3):
		return Member{}, notFoundf("group %s", groupID)
	case err != nil:
		return Member{}, fmt.Errorf("add placeholder: %w", err)
	}
	return rec.member()
}

// FieldName is the change a placeholder's events record: its name.
const FieldName = "name"
