package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// leaveAttempts bounds how often leaving re-reads the balances when another
// write changed the ledger in between.
const leaveAttempts = 5

// LeaveGroup ends the user's membership, only while their balance in every
// currency is zero (ErrConflict otherwise). The membership item stays,
// marked with leftAt and out of the user's group list, so that the expenses
// and settlements they took part in still name them. memberCount drops and
// the ledger forgets them, with the MEMBER_LEFT event, in one transaction
// conditioned on the ledger's version: no write can change their balance
// between the check and the leave. An owner leaves only while another
// member is an owner too: otherOwner names them, and the leave is
// conditioned on their still being one ("" for a user who is no owner).
func (s *Store) LeaveGroup(ctx context.Context, groupID, userID, otherOwner string) (Member, error) {
	for range leaveAttempts {
		gb, err := s.getBalances(ctx, []string{groupID}, true)
		if err != nil {
			return Member{}, err
		}
		if gb[0] == nil {
			return Member{}, notFoundf("group %s", groupID)
		}
		var owing []string
		for _, b := range gb[0].Books {
			if u := b.Users[userID]; u != nil && !u.Net().IsZero() {
				owing = append(owing, u.Net().String()+" "+b.Currency.Code())
			}
		}
		if len(owing) > 0 {
			return Member{}, conflictf("settle up before leaving: your balance is %s", strings.Join(owing, ", "))
		}
		var keep []types.TransactWriteItem
		if otherOwner != "" {
			keep = append(keep, s.stillOwner(groupID, otherOwner))
		}
		m, err := s.leave(ctx, memberEvent(EventMemberLeft, groupID, userID, formatTime(s.stamp()), nil), userID, gb[0].Version, keep)
		if err == errLedgerMoved {
			continue
		}
		return m, err
	}
	return Member{}, conflictf("the group is too busy to leave right now; retry")
}

var errLedgerMoved = fmt.Errorf("ledger changed")

// The expressions of leaving.
var (
	// memberLeave marks the membership ended and moves it from the user's
	// groups (GSI1) to their former memberships (GSI3 LEFT#).
	memberLeave = "SET " + attrLeftAt + " = :now, " + attrGSI3PK + " = :gsi3pk, " + attrGSI3SK + " = :gsi3sk REMOVE " +
		attrGSI1PK + ", " + attrGSI1SK
	// placeholderLeave ends a claimed placeholder: no user's list holds it.
	placeholderLeave = "SET " + attrLeftAt + " = :now REMOVE " + attrGSI1PK + ", " + attrGSI1SK
	memberCurrent    = condItemExists + " AND " + memberNotLeft
)

// leave ends userID's membership with the event ev (its leaving, or its
// removal by an admin), at the balances' version, with extra conditions.
func (s *Store) leave(ctx context.Context, ev Event, userID string, version int64, extra []types.TransactWriteItem) (Member, error) {
	groupID, now := ev.GroupID, formatTime(ev.At)
	pk := groupPK(groupID)
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, memberSK(userID)),
			UpdateExpression:    aws.String(memberLeave),
			ConditionExpression: aws.String(memberCurrent),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":now": str(now), ":gsi3pk": str(userKey(userID)), ":gsi3sk": str(leftGSI3SK(groupID)),
			},
		}},
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, skMetadata),
			UpdateExpression:          aws.String("ADD " + attrMemberCount + " :minus"),
			ConditionExpression:       aws.String(condItemExists),
			ExpressionAttributeValues: map[string]types.AttributeValue{":minus": number(-1)},
		}},
	}
	items = append(items, extra...)
	err := s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.requireMembers([]string{userID, ev.ActorID})
		l.removeMember(userID)
		l.atVersion(version)
		l.bumpVersion()
		return items, nil
	})
	switch {
	case len(extra) > 0 && IsCondCheckFailed(err) && !condFailedAt(err, 0) && !condFailedAt(err, 1) && !condFailedAt(err, 2):
		return Member{}, conflictf("a role changed meanwhile; read the members again and retry")
	case condFailedAt(err, 1):
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	case condFailedAt(err, 0):
		return Member{}, errLedgerMoved
	case err != nil:
		return Member{}, fmt.Errorf("leave group: %w", err)
	}
	return s.getMember(ctx, groupID, userID, true)
}

// stillOwner is the condition that userID is still an active owner.
func (s *Store) stillOwner(groupID, userID string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(userID)),
		ConditionExpression:       aws.String(condItemExists + " AND " + memberNotLeft + " AND " + refRole + " = :owner"),
		ExpressionAttributeNames:  roleNames(),
		ExpressionAttributeValues: map[string]types.AttributeValue{":owner": str(string(RoleOwner))},
	}}
}
