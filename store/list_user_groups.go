package store

import "context"

// ListUserGroups pages through the user's memberships, one per group
// (access pattern 9). Each carries the group id; the group itself is read
// separately (and in batches) only when asked for.
func (s *Store) ListUserGroups(ctx context.Context, userID string, args PageArgs) (Page[Member], error) {
	return listPage(ctx, s, listQuery{
		list:    userGroupsList(userID),
		index:   indexGSI1,
		keyCond: gsi1PrefixCond,
		values:  prefixValues(userKey(userID), prefixGroup),
		forward: true,
		keys:    gsi1Keys,
	}, args, (*memberRecord).member)
}

func userGroupsList(userID string) string { return "user-groups:" + userID }

// AllUserGroups is every membership of the user's current groups, all pages
// of ListUserGroups, in its order.
func (s *Store) AllUserGroups(ctx context.Context, userID string) ([]Member, error) {
	var all []Member
	err := eachPage(ctx, func(a PageArgs) (Page[Member], error) { return s.ListUserGroups(ctx, userID, a) }, func(m *Member) {
		all = append(all, *m)
	})
	return all, err
}

// UserGroupsPage is the page ListUserGroups would read, with the same
// cursors, taken from all of the user's memberships (AllUserGroups).
func (s *Store) UserGroupsPage(userID string, all []Member, args PageArgs) (Page[Member], error) {
	return memoryList[Member]{
		list: userGroupsList(userID), attrs: gsi1Keys, order: attrGSI1SK,
		key: func(m *Member) map[string]string {
			return map[string]string{attrPK: groupPK(m.GroupID), attrSK: memberSK(m.UserID), attrGSI1PK: userKey(m.UserID), attrGSI1SK: groupGSI1SK(m.GroupID)}
		},
	}.page(s, all, args)
}
