package store

import (
	"context"
	"math"
)

// ListParticipants reads an expense's participant records: every user the
// expense involves other than its main payer (access pattern 6).
func (s *Store) ListParticipants(ctx context.Context, groupID, expenseID string) ([]Share, error) {
	items, err := s.collect(ctx, listQuery{
		list:    "participants:" + expenseID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), participantSK(expenseID, "")),
		forward: true,
	}, nil, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	return decodeAll(items, (*participantRecord).share)
}
