package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCreateExpenseIdempotency(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := equalExpense(g, "1", "10.00", "1", "2")

	first, err := f.CreateExpense(ctx, g.Title, e, "key-1")
	require.NoError(t, err)
	retry, err := f.CreateExpense(ctx, g.Title, e, "key-1")
	require.NoError(t, err)
	require.Equal(t, first, retry, "a retry returns what the first request made")

	changed := equalExpense(g, "1", "11.00", "1", "2")
	_, err = f.CreateExpense(ctx, g.Title, changed, "key-1")
	require.ErrorIs(t, err, store.ErrConflict)

	// Keys are per user: Bob's key-1 is his own.
	bobs := equalExpense(g, "2", "10.00", "1", "2")
	bobs.CreatedBy = "2"
	other, err := f.CreateExpense(ctx, g.Title, bobs, "key-1")
	require.NoError(t, err)
	require.NotEqual(t, first.ID, other.ID)

	page, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 2)

	// Once the expense is deleted, replaying its request is a conflict, not a re-creation.
	_, err = f.DeleteExpense(ctx, first, "1")
	require.NoError(t, err)
	_, err = f.CreateExpense(ctx, g.Title, e, "key-1")
	require.ErrorIs(t, err, store.ErrConflict)
}

func TestConcurrentRetriesCreateOneExpense(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	var wg sync.WaitGroup
	ids := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "10.00", "1", "2"), "same")
			if err == nil {
				ids <- e.ID
			} else {
				require.ErrorIs(t, err, store.ErrConflict) // in flight at the same instant: told to retry
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	require.Len(t, seen, 1)
	page, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
}

func TestCreateSettlementIdempotency(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	st := store.Settlement{GroupID: g.ID, FromUserID: "1", FromUserName: "A", ToUserID: "2", ToUserName: "B", Amount: amount("5.00"), Status: store.SettlementPending}
	first, err := f.CreateSettlement(ctx, st, "k")
	require.NoError(t, err)
	retry, err := f.CreateSettlement(ctx, st, "k")
	require.NoError(t, err)
	require.Equal(t, first, retry)
	st.Amount = amount("6.00")
	_, err = f.CreateSettlement(ctx, st, "k")
	require.ErrorIs(t, err, store.ErrConflict)
}
