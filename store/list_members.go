package store

import "context"

// ListMembers pages through a group's current members in user-id order
// (access pattern 2); former members are filtered out.
func (s *Store) ListMembers(ctx context.Context, groupID string, args PageArgs) (Page[Member], error) {
	return listPage(ctx, s, listQuery{
		list:    "members:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefixUser),
		filter:  memberNotLeft,
		forward: true,
		keys:    tableKeys,
	}, args, (*memberRecord).member)
}
