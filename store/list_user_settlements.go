package store

import "context"

// ListUserSettlements pages through the settlements the user made (paid) in
// the groups they are in, newest first (access pattern 12).
func (s *Store) ListUserSettlements(ctx context.Context, userID string, args PageArgs) (Page[Settlement], error) {
	return listPage(ctx, s, s.userActivityQuery(ctx, userID, prefixSettle), args, (*settlementRecord).settlement)
}
