package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestOnCommitHearsEachEventOnceInOrder: the commit hook hears every event
// this process writes, each group's in order, including writes that lost a
// race to another process and tried again; never another process's.
func TestOnCommitHearsEachEventOnceInOrder(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	heard := map[string][]int64{}
	f.OnCommit(func(ev store.Event) {
		mu.Lock()
		defer mu.Unlock()
		heard[ev.GroupID] = append(heard[ev.GroupID], ev.Seq)
	})
	other := store.New(dynamotest.Client(t), f.Table(), store.Options{})
	g := f.group("1", "2")
	var wg sync.WaitGroup
	for _, s := range []*store.Store{f.Store, other, f.Store} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				_, err := s.CreateExpense(ctx, g.Title, equalExpense(g, "1", "3.00", "1", "2"), "")
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	events := all(t, 50, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, g.ID, a) })
	mu.Lock()
	defer mu.Unlock()
	got := heard[g.ID]
	require.Len(t, got, len(events)-5, "every event but the other process's five")
	for i := 1; i < len(got); i++ {
		require.Less(t, got[i-1], got[i], "in order")
	}
	f.OnCommit(nil)
}
