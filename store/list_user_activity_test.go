package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListUserActivityInterleavesByTime(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	// Written in this order, one second apart: the timeline is its reverse.
	var want []string
	for i, kind := range []string{"tx", "settle", "settle", "tx", "tx", "settle", "tx", "settle", "settle", "settle", "tx"} {
		amt := fmt.Sprintf("%d.00", i+1)
		if kind == "tx" {
			want = append([]string{"E" + f.expense(g, "1", amt, "1", "2").ID}, want...)
		} else {
			want = append([]string{"S" + f.settle(g, "1", "2", amt, store.SettlementPending).ID}, want...)
		}
	}
	f.expense(g, "2", "1.00", "1", "2") // someone else's activity
	f.settle(g, "2", "1", "1.00", store.SettlementPending)

	for _, n := range []int{1, 2, 3, 4, 11, 20} {
		t.Run(fmt.Sprint("pages of ", n), func(t *testing.T) {
			got := all(t, n, func(p store.PageArgs) (store.Page[store.Activity], error) { return f.ListUserActivity(ctx, "1", p) }) // access pattern 13
			ids := make([]string, len(got))
			for i, a := range got {
				if a.Expense != nil {
					ids[i] = "E" + a.Expense.ID
				} else {
					ids[i] = "S" + a.Settlement.ID
				}
			}
			require.Equal(t, want, ids)
		})
	}
	_, err := f.ListUserActivity(ctx, "2", store.PageArgs{First: 1, After: "x.y"})
	require.ErrorIs(t, err, store.ErrBadCursor)
}
