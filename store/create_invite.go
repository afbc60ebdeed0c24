package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateInvite stores a new invite to inv.GroupID, made by the current member
// inv.CreatedBy, under the hash of its secret, expiring life from now. A
// PlaceholderID must name one of the group's unclaimed placeholders. The
// creator's membership (and the placeholder's) is checked in the same
// transaction as the invite and its INVITE_CREATED event: ErrNotFound when
// either is missing.
func (s *Store) CreateInvite(ctx context.Context, inv Invite, life time.Duration, secretHash string) (Invite, error) {
	inv.ID = s.newID()
	inv.CreatedAt = s.stamp()
	inv.ExpiresAt = inv.CreatedAt.Add(life)
	inv.Uses, inv.RevokedAt = 0, nil
	inv.sk = inviteSK(formatTime(inv.ExpiresAt), inv.ID)
	put, err := s.putNew(inv.record(secretHash), "invite")
	if err != nil {
		return Invite{}, err
	}
	items := []types.TransactWriteItem{put, s.memberCheck(inv.GroupID, inv.CreatedBy, memberCurrent)}
	if inv.PlaceholderID != "" {
		items = append(items, s.memberCheck(inv.GroupID, inv.PlaceholderID, placeholderUnclaimed))
	}
	ev := inviteEvent(EventInviteCreated, &inv, inv.CreatedBy, inv.CreatedAt, InviteChanges(nil, &inv))
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) { return items, nil })
	switch {
	case condFailedAt(err, 1):
		return Invite{}, conflictf("an invite with this secret already exists")
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return Invite{}, notFoundf("group %s", inv.GroupID)
	case condFailedAt(err, 3):
		return Invite{}, notFoundf("placeholder %s", inv.PlaceholderID)
	case err != nil:
		return Invite{}, fmt.Errorf("create invite: %w", err)
	}
	return inv, nil
}

// memberCheck is a transaction item that only checks cond on the membership
// of userID in the group.
func (s *Store) memberCheck(groupID, userID, cond string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(userID)),
		ConditionExpression: aws.String(cond),
	}}
}
