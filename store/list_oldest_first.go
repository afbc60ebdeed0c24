package store

import "context"

// ListExpensesOldestFirst pages through a group's expenses in the order they
// were recorded (access pattern 4 read forwards): what an export writes, so
// that a file reads, and is imported, in the group's own order.
func (s *Store) ListExpensesOldestFirst(ctx context.Context, groupID string, args PageArgs) (Page[Expense], error) {
	return listPage(ctx, s, oldestFirst("expenses-oldest:", groupID, prefixTx), args, (*expenseRecord).expense)
}

// ListSettlementsOldestFirst pages through a group's settlements in the
// order they were recorded (access pattern 5 read forwards), for exports.
func (s *Store) ListSettlementsOldestFirst(ctx context.Context, groupID string, args PageArgs) (Page[Settlement], error) {
	return listPage(ctx, s, oldestFirst("settlements-oldest:", groupID, prefixSettle), args, (*settlementRecord).settlement)
}

// oldestFirst is the forward list of a group's items under the prefix; its
// cursors are bound to list+groupID, so they are no cursors of the
// newest-first lists.
func oldestFirst(list, groupID, prefix string) listQuery {
	return listQuery{
		list:    list + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefix),
		forward: true,
		keys:    tableKeys,
	}
}
