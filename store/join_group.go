package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// memberAbsent: the user was never a member, or has left.
var memberAbsent = condItemAbsent + " OR " + attrExists(attrLeftAt)

// JoinGroup makes the user a member of the group, or a member again after
// leaving. Joining again is not an error: it returns the existing membership
// with joined false. The
// membership, the group's memberCount and its ledger change in one
// transaction, so the count stays exact under concurrent joins.
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
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		}},
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, skLedger),
			UpdateExpression:          aws.String("ADD " + attrMemberIDs + " :u"),
			ConditionExpression:       aws.String(condItemExists),
			ExpressionAttributeValues: map[string]types.AttributeValue{":u": &types.AttributeValueMemberSS{Value: []string{nm.UserID}}},
		}},
	}
	err = s.transactWrite(ctx, items)
	switch {
	case err == nil:
		m, err := rec.member()
		return m, true, err
	case condFailedAt(err, 0):
		m, err := s.getMember(ctx, groupID, nm.UserID, true)
		return m, false, err
	case condFailedAt(err, 1) || condFailedAt(err, 2):
		return Member{}, false, notFoundf("group %s", groupID)
	default:
		return Member{}, false, fmt.Errorf("join group: %w", err)
	}
}
