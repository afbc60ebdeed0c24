package store

import "context"

// ListSettlements pages through a group's settlements, newest first (access pattern 5).
func (s *Store) ListSettlements(ctx context.Context, groupID string, args PageArgs) (Page[Settlement], error) {
	return listPage(ctx, s, listQuery{
		list:    "settlements:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefixSettle),
		keys:    tableKeys,
	}, args, (*settlementRecord).settlement)
}
