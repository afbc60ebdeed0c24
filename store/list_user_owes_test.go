package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListUserShares(t *testing.T) {
	f := newFixture(t)
	a := f.group("1", "2")
	b := f.group("3", "2")
	e1 := f.expense(a, "1", "10.00", "1", "2")
	f.expense(a, "2", "10.00", "1", "2") // paid by 2: not a share of 2's
	e3 := f.expense(b, "3", "9.00", "2", "3")
	f.expense(b, "3", "9.00", "3")

	got := all(t, 1, func(p store.PageArgs) (store.Page[store.Share], error) { return f.ListUserShares(ctx, "2", p) }) // access pattern 10
	require.Len(t, got, 2)
	require.Equal(t, e3.ID, got[0].ExpenseID, "newest first")
	require.Equal(t, "4.50", got[0].Amount.String())
	require.Equal(t, e1.ID, got[1].ExpenseID)
	require.Equal(t, "5.00", got[1].Amount.String())
	require.Equal(t, a.ID, got[1].GroupID)
}
