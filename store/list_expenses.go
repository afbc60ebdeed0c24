package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListExpenses pages through a group's expenses, newest first (access pattern 4).
func (s *Store) ListExpenses(ctx context.Context, groupID string, args PageArgs) (Page[Expense], error) {
	return listPage(ctx, s, listQuery{
		list:    "expenses:" + groupID,
		keyCond: "PK = :pk AND begins_with(SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(groupPK(groupID)), ":prefix": str(prefixTx)},
		keys:    tableKeys,
	}, args, (*expenseRecord).expense)
}
