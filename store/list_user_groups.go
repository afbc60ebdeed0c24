package store

import "context"

// ListUserGroups pages through the user's memberships, one per group
// (access pattern 9). Each carries the group id; the group itself is read
// separately (and in batches) only when asked for.
func (s *Store) ListUserGroups(ctx context.Context, userID string, args PageArgs) (Page[Member], error) {
	return listPage(ctx, s, listQuery{
		list:    "user-groups:" + userID,
		index:   indexGSI1,
		keyCond: gsi1PrefixCond,
		values:  prefixValues(userKey(userID), prefixGroup),
		forward: true,
		keys:    gsi1Keys,
	}, args, (*memberRecord).member)
}
