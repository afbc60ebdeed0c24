package store

import "context"

// ListExpenses pages through a group's expenses, newest first (access pattern 4).
func (s *Store) ListExpenses(ctx context.Context, groupID string, args PageArgs) (Page[Expense], error) {
	return listPage(ctx, s, listQuery{
		list:    "expenses:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefixTx),
		keys:    tableKeys,
	}, args, (*expenseRecord).expense)
}
