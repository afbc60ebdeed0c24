package store

import "context"

// ListUserShares pages through the expenses the user owes on (their share
// exceeds what they paid) in the groups they are in, newest first (access
// pattern 10).
func (s *Store) ListUserShares(ctx context.Context, userID string, args PageArgs) (Page[Share], error) {
	return listPage(ctx, s, listQuery{
		list:    "user-owes:" + userID,
		index:   indexGSI1,
		keyCond: gsi1PrefixCond,
		values:  prefixValues(userKey(userID), prefixOwes),
		keys:    gsi1Keys,
		keep:    s.inCurrentGroups(ctx, userID),
	}, args, (*participantRecord).share)
}
