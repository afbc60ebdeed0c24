package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteExpense removes the expense and all its participant records, and
// takes its effect off the group's balances, in one transaction. It fails
// with ErrNotFound if the expense is already gone, and with ErrConflict if a
// user it involves has left the group (their balance, settled to zero when
// they left, would change behind their back).
func (s *Store) DeleteExpense(ctx context.Context, e Expense) error {
	delta, err := e.delta()
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: tableKey(groupPK(e.GroupID), expenseSK(formatTime(e.CreatedAt), e.ID)),
			ConditionExpression: aws.String(condItemExists),
		}},
		s.ledgerUpdate(e.GroupID, e.involvedUsers(), e.Amount.Currency()),
		s.balancesUpdate(e.GroupID, delta.Negate()),
	}
	for _, p := range e.participantRecords("") {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: &s.table, Key: tableKey(p.PK, p.SK),
		}})
	}
	err = s.transactWrite(ctx, items)
	switch {
	case condFailedAt(err, 0):
		return notFoundf("expense %s", e.ID)
	case condFailedAt(err, 1):
		return conflictf("a member this expense involves has left the group, so it can no longer be deleted")
	case err != nil:
		return fmt.Errorf("delete expense: %w", err)
	}
	return nil
}
