package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestChainAcrossProcesses: two stores on one table stand for two server
// processes writing to the same group at once. Each remembers the group's
// head, so each must notice the other's writes from the ledger's refusal.
// The log ends up numbered without gap, every event linked to the one
// before, and the ledger's head on the newest.
func TestChainAcrossProcesses(t *testing.T) {
	f := newFixture(t)
	other := store.New(dynamotest.Client(t), f.Table(), store.Options{})
	g := f.group("1", "2")

	var wg sync.WaitGroup
	for _, s := range []*store.Store{f.Store, other, f.Store, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				_, err := s.CreateExpense(ctx, g.Title, equalExpense(g, "1", "3.00", "1", "2"), "")
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	// One more through each: both remembered heads are stale by now.
	f.expense(g, "2", "1.00", "1", "2")
	_, err := other.CreateExpense(ctx, g.Title, equalExpense(g, "1", "1.00", "1", "2"), "")
	require.NoError(t, err)

	events := all(t, 7, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, g.ID, a) })
	// The group's creation, "2" joining, and 34 expenses.
	require.Len(t, events, 2+4*8+2)
	for i, ev := range events {
		require.EqualValues(t, len(events)-i, ev.Seq, "newest first, without gap")
		require.Len(t, ev.Hash, 64)
		if i+1 < len(events) {
			require.Equal(t, events[i+1].Hash, ev.PrevHash)
		} else {
			require.Empty(t, ev.PrevHash)
			require.Equal(t, store.EventGroupCreated, ev.Type)
		}
	}
	b, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.EqualValues(t, len(events), b[0].Events)
	require.Equal(t, events[0].Hash, b[0].HistoryHead)
}
