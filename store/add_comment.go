package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// AddComment writes a new comment by the current member c.AuthorID (named
// c.AuthorName) on the expense at expense, which must carry its group and
// creation time, with its COMMENT_ADDED event, in one transaction on
// condition that the author is still a member (ErrNotFound otherwise) and
// that the expense exists and is not deleted: a deleted expense's item has
// left its TX# key (ErrConflict). The body must have been checked already.
func (s *Store) AddComment(ctx context.Context, expense ExpenseRef, c Comment) (Comment, error) {
	c.ID = s.newCommentID()
	c.GroupID, c.ExpenseID = expense.GroupID, expense.ID
	c.CreatedAt = s.stamp()
	c.DeletedAt, c.DeletedBy = nil, ""
	put, err := s.putNew(c.record(), "comment")
	if err != nil {
		return Comment{}, err
	}
	items := []types.TransactWriteItem{
		put,
		s.memberCheck(c.GroupID, c.AuthorID, memberCurrent),
		{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: tableKey(groupPK(c.GroupID), expenseSK(formatTime(expense.CreatedAt), expense.ID)),
			ConditionExpression: aws.String(condItemExists),
		}},
	}
	ev := commentEvent(EventCommentAdded, &c, c.AuthorID, c.CreatedAt)
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) { return items, nil })
	switch {
	case condFailedAt(err, 1):
		return Comment{}, conflictf("a comment with this id already exists")
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return Comment{}, notFoundf("group %s", c.GroupID)
	case condFailedAt(err, 3):
		return Comment{}, conflictf("the expense is deleted: restore it to comment on it")
	case err != nil:
		return Comment{}, fmt.Errorf("add comment: %w", err)
	}
	return c, nil
}
