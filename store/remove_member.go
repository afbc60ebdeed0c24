package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// RemoveMember ends userID's membership on behalf of actor (an admin, or
// any member if the group's setting allows), as leaving would: only a member
// whose balance is zero in every currency, or a placeholder that nothing
// names (no expense or settlement ever moved its balance), and never an
// owner; an admin only by an owner. The membership stays as a former one,
// like a member who left, with the MEMBER_REMOVED event by actor. The write
// is conditioned on the balances and on the actor's role as read.
func (s *Store) RemoveMember(ctx context.Context, groupID, actor, userID string) (Member, error) {
	for range leaveAttempts {
		r, err := s.readRoles(ctx, groupID)
		if err != nil {
			return Member{}, err
		}
		target := r.members[userID]
		by, was := r.role(actor), r.role(userID)
		switch {
		case by == "":
			return Member{}, notFoundf("member %s of group %s", actor, groupID)
		case target == nil:
			return Member{}, notFoundf("member %s of group %s", userID, groupID)
		case userID == actor:
			return Member{}, fmt.Errorf("%w: to leave the group yourself, use leaveGroup", ErrInvalidInput)
		case !by.AtLeast(r.group.Needs(ActionRemoveMember)):
			return Member{}, forbiddenf("only an admin or the owner may remove members from this group")
		case was == RoleOwner:
			return Member{}, forbiddenf("an owner cannot be removed; they may hand the group over and leave")
		case was == RoleAdmin && by != RoleOwner:
			return Member{}, forbiddenf("only an owner may remove an admin")
		}
		gb, err := s.getBalances(ctx, []string{groupID}, true)
		if err != nil {
			return Member{}, err
		}
		if gb[0] == nil {
			return Member{}, notFoundf("group %s", groupID)
		}
		if err := removable(target, gb[0]); err != nil {
			return Member{}, err
		}
		ev := memberEvent(EventMemberRemoved, groupID, userID, formatTime(s.stamp()), nil)
		ev.ActorID = actor
		actorCond, values := s.roleAsRead(r, actor)
		check := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(actor)),
			ConditionExpression: &actorCond, ExpressionAttributeValues: values, ExpressionAttributeNames: roleNames(),
		}}
		m, err := s.leave(ctx, ev, userID, gb[0].Version, []types.TransactWriteItem{check})
		if err == errLedgerMoved {
			continue
		}
		return m, err
	}
	return Member{}, conflictf("the group is too busy to remove a member right now; retry")
}

// removable says why the member cannot be removed from a group with these
// balances, or nil.
func removable(m *Member, gb *GroupBalances) error {
	var owing, named []string
	for _, b := range gb.Books {
		u := b.Users[m.UserID]
		switch {
		case u == nil:
		case m.Placeholder:
			named = append(named, b.Currency.Code())
		case !u.Net().IsZero():
			owing = append(owing, u.Net().String()+" "+b.Currency.Code())
		}
	}
	if len(named) > 0 {
		return conflictf("%s is named by expenses or settlements in %s; a placeholder is removed only while nothing names it",
			m.Name, strings.Join(named, ", "))
	}
	if len(owing) > 0 {
		return conflictf("%s's balance is %s; they can be removed once it is settled", m.Name, strings.Join(owing, ", "))
	}
	return nil
}
