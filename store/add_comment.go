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
	return s.AddCommentOnce(ctx, expense, c, "")
}

// AddCommentOnce is AddComment with an idempotency key (none when ""): the
// author's key is claimed in the same transaction, and a retry with the
// same key and the same comment (expense and body) returns the comment the
// first request made instead of adding another; the key used for anything
// else is ErrConflict. Keys last IdempotencyWindow, as createExpense's.
func (s *Store) AddCommentOnce(ctx context.Context, expense ExpenseRef, c Comment, idempotencyKey string) (Comment, error) {
	c.ID = prefixedID(CommentPrefix, s.newID())
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
	idem := -1
	if idempotencyKey != "" {
		put, err := s.idempotencyPut(c.AuthorID, idempotencyKey, idempotencyRecord{
			Kind: "comment", ResourceID: c.ID, GroupID: c.GroupID, CreatedAt: formatTime(c.CreatedAt), Fingerprint: c.fingerprint(),
		})
		if err != nil {
			return Comment{}, err
		}
		items = append(items, put)
		idem = len(items) // its index in the transaction, after the ledger
	}
	ev := commentEvent(EventCommentAdded, &c, c.AuthorID, c.CreatedAt)
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) { return items, nil })
	switch {
	case idem >= 0 && condFailedAt(err, idem):
		return s.replayComment(ctx, c, idempotencyKey)
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

// replayComment returns the comment an earlier request with the same key
// made (a tombstone if it was deleted since).
func (s *Store) replayComment(ctx context.Context, c Comment, key string) (Comment, error) {
	rec, created, err := s.claimedBy(ctx, c.AuthorID, key, "comment", c.fingerprint())
	if err != nil {
		return Comment{}, err
	}
	// The same fingerprint: the same group and expense.
	found, err := s.CurrentComment(ctx, CommentRef{ID: rec.ResourceID, GroupID: rec.GroupID, ExpenseID: c.ExpenseID, CreatedAt: created})
	if err != nil {
		return Comment{}, err
	}
	if found == nil {
		return Comment{}, conflictf("this request was already made, and the comment it added is gone")
	}
	return *found, nil
}

// fingerprint identifies what the comment says, apart from its id and time.
func (c *Comment) fingerprint() string { return fingerprint(c.GroupID, c.ExpenseID, c.Body) }
