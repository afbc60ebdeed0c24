package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListUserExpenses pages through the expenses the user paid, across all
// groups, newest first (access pattern 11).
func (s *Store) ListUserExpenses(ctx context.Context, userID string, args PageArgs) (Page[Expense], error) {
	return listPage(ctx, s, userActivityQuery(userID, prefixTx), args, (*expenseRecord).expense)
}

// userActivityQuery is one kind of the user's activity on GSI3, newest first.
func userActivityQuery(userID, prefix string) listQuery {
	return listQuery{
		list:    "user-activity:" + prefix + userID,
		index:   indexGSI3,
		keyCond: "GSI3PK = :pk AND begins_with(GSI3SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(userKey(userID)), ":prefix": str(prefix)},
		keys:    gsi3Keys,
	}
}
