package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteExpense removes the expense and all its participant records in one
// transaction. It fails with ErrNotFound if the expense is already gone.
func (s *Store) DeleteExpense(ctx context.Context, e Expense) error {
	ts := formatTime(e.CreatedAt)
	pk := groupPK(e.GroupID)
	items := []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: &s.table, Key: tableKey(pk, expenseSK(ts, e.ID)),
		ConditionExpression: aws.String("attribute_exists(PK)"),
	}}}
	for _, p := range e.participantRecords("") {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: &s.table, Key: tableKey(p.PK, p.SK),
		}})
	}
	err := s.transactWrite(ctx, items)
	switch {
	case condFailedAt(err, 0):
		return notFoundf("expense %s", e.ID)
	case err != nil:
		return fmt.Errorf("delete expense: %w", err)
	}
	return nil
}
