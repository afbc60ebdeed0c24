package store

import "context"

// ListSeries pages through a group's recurring expenses, in the order of
// their ids (a stable order for cursors).
func (s *Store) ListSeries(ctx context.Context, groupID string, args PageArgs) (Page[Series], error) {
	return listPage(ctx, s, listQuery{
		list:    "series:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefixSeries),
		forward: true,
		keys:    tableKeys,
	}, args, (*seriesRecord).series)
}

// ListOccurrences pages through the expenses a recurring expense has
// created, the latest day first; deleted ones are left out until restored.
func (s *Store) ListOccurrences(ctx context.Context, seriesID string, args PageArgs) (Page[Expense], error) {
	return listPage(ctx, s, listQuery{
		list:    "occurrences:" + seriesID,
		index:   indexGSI1,
		keyCond: gsi1PrefixCond,
		values:  prefixValues(seriesGSI1PK(seriesID), prefixOccurs),
		keys:    gsi1Keys,
	}, args, (*expenseRecord).expense)
}
