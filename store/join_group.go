package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// memberEvent is the activity event of a change to a membership, made by
// the member themself.
func memberEvent(t EventType, groupID, userID, at string, changes []Change) Event {
	when, _ := parseTime(at) // written by formatTime
	return Event{
		GroupID: groupID, Type: t, ActorID: userID, At: when,
		Subject: Subject{Kind: SubjectMember, ID: userID}, Changes: changes,
	}
}

// memberAbsent: the user was never a member, or has left.
var memberAbsent = condItemAbsent + " OR " + attrExists(attrLeftAt)

// JoinGroup makes the user a member of the group, or a member again after
// leaving. Joining again is not an error: it returns the existing membership
// with joined false. The membership, the group's memberCount, its ledger and
// the MEMBER_JOINED event are written in one transaction, so the count stays
// exact under concurrent joins.
func (s *Store) JoinGroup(ctx context.Context, groupID string, nm NewMember) (m Member, joined bool, err error) {
	rec, err := newMemberRecord(groupID, nm, s.stamp())
	if err != nil {
		return Member{}, false, err
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return Member{}, false, fmt.Errorf("encode member: %w", err)
	}
	pk := groupPK(groupID)
	items := []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: &s.table, Item: item,
			ConditionExpression: aws.String(memberAbsent),
		}},
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, skMetadata),
			UpdateExpression:          aws.String("ADD " + attrMemberCount + " :one"),
			ConditionExpression:       aws.String(condItemExists),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": number(1)},
		}},
	}
	ev := memberEvent(EventMemberJoined, groupID, nm.UserID, rec.JoinedAt, nil)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.addMember(nm.UserID)
		return items, nil
	})
	switch {
	case err == nil:
		m, err := rec.member()
		return m, true, err
	case condFailedAt(err, 1):
		m, err := s.getMember(ctx, groupID, nm.UserID, true)
		return m, false, err
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return Member{}, false, notFoundf("group %s", groupID)
	default:
		return Member{}, false, fmt.Errorf("join group: %w", err)
	}
}
