package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListOldestFirst(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	other := f.group("1", "2")
	var expenses, settlements []string
	for i := range 5 {
		expenses = append(expenses, f.expense(g, "1", fmt.Sprintf("%d.00", i+1), "1", "2").ID)
		settlements = append(settlements, f.settle(g, "2", "1", "0.50", store.SettlementCompleted).ID)
	}
	f.expense(other, "1", "5.00", "1")
	f.settle(other, "2", "1", "1.00", store.SettlementPending)

	for _, n := range []int{1, 2, 5, 100} {
		t.Run(fmt.Sprint("pages of ", n), func(t *testing.T) {
			es := all(t, n, func(a store.PageArgs) (store.Page[store.Expense], error) {
				return f.ListExpensesOldestFirst(ctx, g.ID, a)
			})
			ids := make([]string, len(es))
			for i, e := range es {
				ids[i] = e.ID
			}
			require.Equal(t, expenses, ids)
			ss := all(t, n, func(a store.PageArgs) (store.Page[store.Settlement], error) {
				return f.ListSettlementsOldestFirst(ctx, g.ID, a)
			})
			ids = make([]string, len(ss))
			for i, st := range ss {
				ids[i] = st.ID
			}
			require.Equal(t, settlements, ids)
		})
	}
	// A cursor of the newest-first list is no cursor of this one.
	p, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	_, err = f.ListExpensesOldestFirst(ctx, g.ID, store.PageArgs{First: 1, After: p.Cursors[0].String()})
	require.Error(t, err)
}
