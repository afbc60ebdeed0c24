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

	deleted, err := f.DeleteExpense(ctx, e, "1")
	require.NoError(t, err)
	require.Equal(t, 2, deleted.Version)
	require.NotNil(t, deleted.DeletedAt)

	// It left the group's list; by id it is still found, as deleted.
	page, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	require.Equal(t, keep.ID, page.Items[0].ID)
	tombstone, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Equal(t, deleted.DeletedAt, tombstone.DeletedAt)
	require.Equal(t, 2, tombstone.Version)
	shares, err := f.ListParticipants(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Empty(t, shares)
	// The other expense and its record are untouched.
	shares, err = f.ListParticipants(ctx, g.ID, keep.ID)
	require.NoError(t, err)
	require.Len(t, shares, 1)

	// Deleting twice is reported, not silently repeated.
	_, err = f.DeleteExpense(ctx, e, "1")
	require.ErrorIs(t, err, store.ErrConflict)
}
