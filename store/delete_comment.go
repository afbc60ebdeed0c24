package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// commentDeletable: the comment is there, not deleted yet, and actor (:actor)
// wrote it.
var commentDeletable = condItemExists + " AND " + attrNotExists(attrCommentDeletedAt) + " AND " + attrCommentAuthor + " = :actor"

// DeleteComment turns the comment c (as read) into a tombstone on behalf of
// actor, who must be its author and still a member: its body goes,
// deletedAt and deletedBy are set, and its COMMENT_DELETED event is written
// in the same transaction; it returns the tombstone. The conditions are on
// the item as it is now, not as c says: deleting twice is refused with
// ErrConflict, anyone but the author with ErrNotAuthor, and ErrNotFound
// answers when there is no such comment or actor is no longer a member.
func (s *Store) DeleteComment(ctx context.Context, c Comment, actor string) (Comment, error) {
	ref := c.Ref()
	now := s.stamp()
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(groupPK(ref.GroupID), ref.sk()),
			UpdateExpression:    aws.String("SET " + attrCommentDeletedAt + " = :now, " + attrCommentDeletedBy + " = :actor REMOVE " + attrCommentBody),
			ConditionExpression: aws.String(commentDeletable),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":now": str(formatTime(now)), ":actor": str(actor),
			},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		s.memberCheck(ref.GroupID, actor, memberCurrent),
	}
	ev := commentEvent(EventCommentDeleted, &c, actor, now)
	err := s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) { return items, nil })
	switch {
	case condFailedAt(err, 1):
		return Comment{}, commentRefusal(oldItemAt(err, 1), actor)
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return Comment{}, notFoundf("group %s", ref.GroupID)
	case err != nil:
		return Comment{}, fmt.Errorf("delete comment: %w", err)
	}
	c.Body, c.DeletedAt, c.DeletedBy = "", &now, actor
	return c, nil
}

// commentRefusal explains why a comment as it was (nil: absent) could not
// be deleted by actor.
func commentRefusal(old map[string]types.AttributeValue, actor string) error {
	if old == nil {
		return notFoundf("comment")
	}
	var rec commentRecord
	if err := attributevalue.UnmarshalMap(old, &rec); err != nil {
		return fmt.Errorf("decode comment: %w", err)
	}
	switch {
	case rec.DeletedAt != "":
		return conflictf("the comment is already deleted")
	case rec.AuthorID != actor:
		return ErrNotAuthor
	}
	return notFoundf("comment")
}
