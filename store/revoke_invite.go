package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// inviteUnrevoked: the invite is still there and nobody has revoked it.
var inviteUnrevoked = condItemExists + " AND " + attrNotExists(attrRevokedAt)

// RevokeInvite revokes one of the group's unexpired invites, on behalf of
// the current member actor, so that its secret admits nobody from now on
// (the join's transaction requires an unrevoked invite). The invite stays,
// marked revokedAt, until TTL purges it after its expiry, so that its
// INVITE_REVOKED event, written in the same transaction, still shows it.
// ErrNotFound when there is no such invite, or it has expired or been
// revoked already.
func (s *Store) RevokeInvite(ctx context.Context, groupID, inviteID, actor string) (Invite, error) {
	inv, err := s.findInvite(ctx, groupID, inviteID)
	if err != nil {
		return Invite{}, err
	}
	if inv == nil || inv.RevokedAt != nil {
		return Invite{}, notFoundf("invite")
	}
	revoked := *inv
	now := s.stamp()
	revoked.RevokedAt = &now
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(groupPK(groupID), inv.key()),
			UpdateExpression:          aws.String("SET " + attrRevokedAt + " = :now"),
			ConditionExpression:       aws.String(inviteUnrevoked),
			ExpressionAttributeValues: map[string]types.AttributeValue{":now": str(formatTime(now))},
		}},
		s.memberCheck(groupID, actor, memberCurrent),
	}
	ev := inviteEvent(EventInviteRevoked, &revoked, actor, now, InviteChanges(inv, &revoked))
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) { return items, nil })
	switch {
	case condFailedAt(err, 1):
		return Invite{}, notFoundf("invite")
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return Invite{}, notFoundf("group %s", groupID)
	case err != nil:
		return Invite{}, fmt.Errorf("revoke invite: %w", err)
	}
	return revoked, nil
}
