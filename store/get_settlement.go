package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SettlementRef locates a settlement, like ExpenseRef does an expense.
type SettlementRef struct {
	ID        string
	GroupID   string
	CreatedAt time.Time
}

// GetSettlements reads many settlements, aligned with refs (nil where
// missing), by key or by id through GSI2 (access pattern 8) as GetExpenses does.
func (s *Store) GetSettlements(ctx context.Context, refs []SettlementRef) ([]*Settlement, error) {
	items, err := s.getByRefs(ctx, len(refs), func(i int) (string, map[string]types.AttributeValue) {
		r := refs[i]
		if r.GroupID == "" || r.CreatedAt.IsZero() {
			return settlementGSI2PK(r.ID), nil
		}
		return "", tableKey(groupPK(r.GroupID), settlementSK(formatTime(r.CreatedAt), r.ID))
	})
	if err != nil {
		return nil, err
	}
	return alignByID(items, refs, func(r SettlementRef) string { return r.ID }, (*settlementRecord).settlement, func(st *Settlement) string { return st.ID })
}
