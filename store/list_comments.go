package store

import "context"

// ListComments pages through the comments on one of the group's expenses,
// oldest first, tombstones included (they keep the thread's shape). The
// expense's deletion leaves them: they show again when it is restored.
func (s *Store) ListComments(ctx context.Context, groupID, expenseID string, args PageArgs) (Page[Comment], error) {
	return s.listComments(ctx, groupID+":"+expenseID, groupID, expenseCommentsPrefix(expenseID), args)
}

// ListGroupComments pages through every comment of the group, tombstones
// included, by expense (in id order) and then oldest first: what an export
// pages through.
func (s *Store) ListGroupComments(ctx context.Context, groupID string, args PageArgs) (Page[Comment], error) {
	return s.listComments(ctx, groupID, groupID, prefixComment, args)
}

// listComments pages through the group's comments whose sort keys begin
// with prefix, oldest first within an expense; list names the list in its
// cursors.
func (s *Store) listComments(ctx context.Context, list, groupID, prefix string, args PageArgs) (Page[Comment], error) {
	return listPage(ctx, s, listQuery{
		list:    "comments:" + list,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefix),
		forward: true,
		keys:    tableKeys,
	}, args, (*commentRecord).comment)
}
