package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListUserExpenses(t *testing.T) {
	f := newFixture(t)
	a := f.group("1", "2")
	b := f.group("1")
	e1 := f.expense(a, "1", "10.00", "1", "2")
	f.expense(a, "2", "10.00", "1", "2")
	e3 := f.expense(b, "1", "3.00", "1")
	f.settle(a, "1", "2", "1.00", store.SettlementPending) // a settlement is not an expense

	got := all(t, 1, func(p store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", p) }) // access pattern 11
	require.Len(t, got, 2)
	require.Equal(t, e3.ID, got[0].ID)
	require.Equal(t, e1.ID, got[1].ID)
}
