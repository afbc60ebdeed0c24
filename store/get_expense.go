package store

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetExpenses reads many expenses, aligned with refs (nil where missing).
// Refs that carry the group and creation time are read by key in
// BatchGetItem calls; the rest are looked up by id through GSI2 (access
// pattern 7).
func (s *Store) GetExpenses(ctx context.Context, refs []ExpenseRef) ([]*Expense, error) {
	items, err := s.getByRefs(ctx, len(refs), func(i int) (string, map[string]types.AttributeValue) {
		r := refs[i]
		if r.GroupID == "" || r.CreatedAt.IsZero() {
			return expenseGSI2PK(r.ID), nil
		}
		return "", tableKey(groupPK(r.GroupID), expenseSK(formatTime(r.CreatedAt), r.ID))
	})
	if err != nil {
		return nil, err
	}
	return alignByID(items, refs, func(r ExpenseRef) string { return r.ID }, (*expenseRecord).expense, func(e *Expense) string { return e.ID })
}

// CurrentExpenseWith is CurrentExpense with the group's items at keys
// (aligned with them) read in the same call, strongly consistent too: what
// an edit reads before it writes, in one round trip.
func (s *Store) CurrentExpenseWith(ctx context.Context, ref ExpenseRef, keys []GroupItemKey) (*Expense, []GroupItem, error) {
	ts := formatTime(ref.CreatedAt)
	expenseKeys := []map[string]types.AttributeValue{
		tableKey(groupPK(ref.GroupID), expenseSK(ts, ref.ID)),
		tableKey(groupPK(ref.GroupID), deletedExpenseSK(ts, ref.ID)),
	}
	avKeys := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		avKeys[i] = k.tableKey()
	}
	items, err := s.batchRead(ctx, dedupeKeys(append(slices.Clone(expenseKeys), avKeys...)), true)
	if err != nil {
		return nil, nil, err
	}
	var found, others []map[string]types.AttributeValue
	for _, it := range items {
		if sk := keyAttr(it, attrSK); sk == keyAttr(expenseKeys[0], attrSK) || sk == keyAttr(expenseKeys[1], attrSK) {
			found = append(found, it)
		} else {
			others = append(others, it)
		}
	}
	groupItems, err := decodeGroupItems(avKeys, others)
	if err != nil || len(found) == 0 {
		return nil, groupItems, err
	}
	es, err := decodeAll(found[:1], (*expenseRecord).expense)
	if err != nil {
		return nil, nil, err
	}
	return &es[0], groupItems, nil
}

// CurrentExpense reads the expense at ref (which must carry its group and
// creation time) strongly consistent, live or deleted, or nil: what a write
// starts from, since an index lookup may lag behind the latest write.
func (s *Store) CurrentExpense(ctx context.Context, ref ExpenseRef) (*Expense, error) {
	e, _, err := s.CurrentExpenseWith(ctx, ref, nil)
	return e, err
}
