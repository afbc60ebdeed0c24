package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestDeleteExpense(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "30.00", "1", "2", "3")
	keep := f.expense(g, "2", "10.00", "1", "2")

	require.NoError(t, f.DeleteExpense(ctx, e))

	_, err := f.getExpense(e.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	shares, err := f.ListParticipants(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Empty(t, shares)
	// The other expense and its record are untouched.
	shares, err = f.ListParticipants(ctx, g.ID, keep.ID)
	require.NoError(t, err)
	require.Len(t, shares, 1)

	// Deleting twice is reported, not silently repeated.
	require.ErrorIs(t, f.DeleteExpense(ctx, e), store.ErrNotFound)
}
