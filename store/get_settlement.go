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

// GetSettlement reads a settlement by id through GSI2 (access pattern 8).
func (s *Store) GetSettlement(ctx context.Context, settlementID string) (Settlement, error) {
	item, err := s.lookupGSI2(ctx, settlementGSI2PK(settlementID))
	if err != nil {
		return Settlement{}, err
	}
	if item == nil {
		return Settlement{}, notFoundf("settlement %s", settlementID)
	}
	sts, err := decodeAll([]map[string]types.AttributeValue{item}, (*settlementRecord).settlement)
	if err != nil {
		return Settlement{}, err
	}
	return sts[0], nil
}

// GetSettlements reads many settlements, aligned with refs (nil where missing).
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
