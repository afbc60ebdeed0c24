package store

import "context"

// ListMemberships pages through every membership a group has had, in
// user-id order: current members, members who left and placeholders (claimed
// ones included). An export names them all, since its expenses may.
func (s *Store) ListMemberships(ctx context.Context, groupID string, args PageArgs) (Page[Member], error) {
	return listPage(ctx, s, listQuery{
		list:    "memberships:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefixUser),
		forward: true,
		keys:    tableKeys,
	}, args, (*memberRecord).member)
}
