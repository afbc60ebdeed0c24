package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// RevokeInvite deletes one of the group's invites, so that its secret admits
// nobody from now on (the join's transaction requires the item). ErrNotFound
// when there is no such invite.
func (s *Store) RevokeInvite(ctx context.Context, groupID, inviteID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), inviteSK(inviteID)),
		ConditionExpression: aws.String(condItemExists),
	})
	if IsCondCheckFailed(err) {
		return notFoundf("invite")
	}
	if err != nil {
		return fmt.Errorf("revoke invite: %w", err)
	}
	return nil
}
