package store

import (
	"context"
	"math"
)

// GroupReceipts lists every receipt the group's expenses record, the live
// ones' and the deleted ones' (which keep theirs until they are purged):
// what `verify` holds the bucket to.
func (s *Store) GroupReceipts(ctx context.Context, groupID string) ([]Receipt, error) {
	var out []Receipt
	for _, prefix := range []string{prefixTx, prefixDeleted} {
		items, err := s.collect(ctx, listQuery{list: "receipts", keyCond: tablePrefixCond, values: prefixValues(groupPK(groupID), prefix), forward: true}, nil, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		es, err := decodeAll(items, (*expenseRecord).expense)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			out = append(out, e.Receipts...)
		}
	}
	return out, nil
}
