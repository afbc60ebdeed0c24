package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestGetExpenses(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	a := f.expense(g, "1", "10.00", "1", "2")
	b := f.expense(g, "2", "20.00", "1", "2")

	// By key (batched) and by id only (GSI2), missing ones nil, aligned.
	refs := []store.ExpenseRef{a.Ref(), {ID: b.ID}, {ID: "missing"}, {ID: "gone", GroupID: g.ID, CreatedAt: a.CreatedAt}, a.Ref()}
	got, err := f.GetExpenses(ctx, refs)
	require.NoError(t, err)
	require.Len(t, got, len(refs))
	require.Equal(t, a, *got[0])
	require.Equal(t, b, *got[1])
	require.Nil(t, got[2])
	require.Nil(t, got[3])
	require.Equal(t, a, *got[4])
}
