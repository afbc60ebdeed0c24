package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// spendingState is a group's spending summaries as stored and as its live
// expense items say they should be, read strongly consistent after the
// ledger's version, which every expense write bumps.
type spendingState struct {
	version   int64
	want, got map[spendKey]figures
	// imported lists, per summary, the keys of the parts of it that imports
	// keep (spendImportSK), which got adds in.
	imported map[spendKey][]string
}

// readSpendingState reads the ledger's version, then the group's live
// expenses and its summaries.
func (s *Store) readSpendingState(ctx context.Context, groupID string) (spendingState, error) {
	item, ok, err := s.getItem(ctx, groupPK(groupID), skLedger, true)
	if err != nil {
		return spendingState{}, err
	}
	if !ok {
		return spendingState{}, notFoundf("group %s", groupID)
	}
	var ledger ledgerRecord
	if err := attributevalue.UnmarshalMap(item, &ledger); err != nil {
		return spendingState{}, fmt.Errorf("decode ledger: %w", err)
	}
	st := spendingState{version: ledger.Version, want: map[spendKey]figures{}, got: map[spendKey]figures{}, imported: map[spendKey][]string{}}
	pk := groupPK(groupID)
	all := func(prefix string) ([]map[string]types.AttributeValue, error) {
		return s.collect(ctx, listQuery{list: "spending", keyCond: tablePrefixCond, values: prefixValues(pk, prefix), forward: true, consistent: true}, nil, math.MaxInt32)
	}
	items, err := all(prefixTx)
	if err != nil {
		return spendingState{}, err
	}
	expenses, err := decodeAll(items, (*expenseRecord).expense)
	if err != nil {
		return spendingState{}, err
	}
	for i := range expenses {
		k, f := expenses[i].spending()
		if st.want[k] == nil {
			st.want[k] = figures{}
		}
		st.want[k].merge(f, 1)
	}
	if items, err = all(prefixSpend); err != nil {
		return spendingState{}, err
	}
	for _, item := range items {
		k, f, err := readSpendingItem(item)
		if err != nil {
			return spendingState{}, err
		}
		if st.got[k] == nil {
			st.got[k] = figures{}
		}
		st.got[k].merge(f, 1)
		if sk := keyAttr(item, attrSK); sk != spendSK(k.day, k.currency) {
			st.imported[k] = append(st.imported[k], sk)
		}
	}
	return st, nil
}

// differing lists the summaries that are not what the expenses say, in key
// order; a summary of all zeros is the same as none.
func (st spendingState) differing() []spendKey {
	var keys []spendKey
	for k, f := range st.want {
		if !f.equal(st.got[k]) {
			keys = append(keys, k)
		}
	}
	for k, f := range st.got {
		if st.want[k] == nil && len(f) > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b spendKey) int {
		return strings.Compare(spendSK(a.day, a.currency), spendSK(b.day, b.currency))
	})
	return keys
}

// SpendingDrift compares the group's spending summaries with a
// recomputation from its expense items, and describes each that differs.
func (s *Store) SpendingDrift(ctx context.Context, groupID string) ([]string, error) {
	st, err := s.readSpendingState(ctx, groupID)
	if err != nil {
		return nil, err
	}
	var drift []string
	for _, k := range st.differing() {
		drift = append(drift, fmt.Sprintf("spending %s %s: stored %s, the expenses say %s", k.day, k.currency, describeFigures(st.got[k]), describeFigures(st.want[k])))
	}
	return drift, nil
}

func describeFigures(f figures) string {
	if len(f) == 0 {
		return "nothing"
	}
	parts := make([]string, 0, len(f))
	for _, attr := range sortedKeys(f) {
		parts = append(parts, attr+"="+f[attr].String())
	}
	return strings.Join(parts, " ")
}

// rebuildRounds bounds how often RebuildSpending starts again because the
// group changed while it worked.
const rebuildRounds = 5

// RebuildSpending recomputes the group's spending summaries from its expense
// items and writes those that differ (a summary no expense backs any more is
// deleted), so running it again changes nothing. Each batch of writes is one
// transaction with a check that the ledger's version is still the one read
// before the expenses: an expense written meanwhile makes it read and
// compare again, so it never overwrites a summary with a stale figure. It
// returns how many summary items it wrote or deleted.
func (s *Store) RebuildSpending(ctx context.Context, groupID string) (int, error) {
	written := 0
	for range rebuildRounds {
		st, err := s.readSpendingState(ctx, groupID)
		if err != nil {
			return written, err
		}
		keys := st.differing()
		if len(keys) == 0 {
			return written, nil
		}
		n, err := s.writeSpending(ctx, groupID, st, keys)
		written += n
		if err == nil {
			return written, nil
		}
		if !errors.Is(err, errSpendingMoved) {
			return written, err
		}
	}
	return written, conflictf("group %s is too busy to rebuild its spending summaries right now; retry", groupID)
}

// errSpendingMoved: an expense was written while the summaries were rebuilt.
var errSpendingMoved = errors.New("the group changed meanwhile")

// writeSpending writes the recomputed summaries of keys, in transactions of
// at most maxTransactItems-1 writes and the ledger's version check. A
// summary is rewritten whole into its day's own item, and the parts of it
// imports kept are deleted in the same transaction.
func (s *Store) writeSpending(ctx context.Context, groupID string, st spendingState, keys []spendKey) (int, error) {
	written := 0
	for len(keys) > 0 {
		l := newLedgerEdit(groupID)
		l.atVersion(st.version)
		check := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: tableKey(groupPK(groupID), skLedger),
			ConditionExpression:       aws.String(strings.Join(l.conds, " AND ")),
			ExpressionAttributeValues: l.values,
		}}
		items := []types.TransactWriteItem{check}
		for len(keys) > 0 && len(items)+1+len(st.imported[keys[0]]) <= maxTransactItems {
			k := keys[0]
			if f := st.want[k]; f != nil {
				items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: spendingItem(groupID, k, f)}})
			} else {
				items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: tableKey(groupPK(groupID), spendSK(k.day, k.currency))}})
			}
			for _, sk := range st.imported[k] {
				items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: tableKey(groupPK(groupID), sk)}})
			}
			keys = keys[1:]
		}
		if len(items) == 1 {
			return written, fmt.Errorf("rebuild spending %s %s: %d imports keep parts of it, more than one transaction holds", keys[0].day, keys[0].currency, len(st.imported[keys[0]]))
		}
		err := s.transactWrite(ctx, items)
		switch {
		case condFailedAt(err, 0):
			return written, errSpendingMoved
		case err != nil:
			return written, fmt.Errorf("rebuild spending: %w", err)
		}
		written += len(items) - 1
	}
	return written, nil
}
