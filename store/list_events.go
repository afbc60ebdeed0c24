package store

import "context"

// ListEvents pages through a group's activity events, newest first.
func (s *Store) ListEvents(ctx context.Context, groupID string, args PageArgs) (Page[Event], error) {
	return listPage(ctx, s, listQuery{
		list:    "events:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), eventSK(0)),
		keys:    tableKeys,
		// Read right after the write that added to it, by the writer.
		consistent: true,
	}, args, (*eventRecord).event)
}
