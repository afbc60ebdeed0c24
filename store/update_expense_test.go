package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestUpdateExpenseMovesRecordsAndIndexes: an edit rewrites the participant
// records and every index entry to match the new expense, in one step.
func TestUpdateExpenseMovesRecordsAndIndexes(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3", "4")
	old := f.expense(g, "1", "30.00", "1", "2", "3")

	// Now 4 paid, and 1 and 2 share it: 3's record goes, 1 gets one (no
	// longer the main payer), and the expense moves to 4's "paid" list.
	next := equalExpense(g, "4", "20.00", "1", "2")
	next.Description = "Taxi"
	updated, err := f.UpdateExpense(ctx, old, next, g.Title, "2")
	require.NoError(t, err)
	require.Equal(t, 2, updated.Version)
	require.Equal(t, "4", updated.PayerID)
	require.Equal(t, old.CreatedAt, updated.CreatedAt, "it keeps its place in the lists")
	require.Equal(t, "1", updated.CreatedBy)

	shares, err := f.ListParticipants(ctx, g.ID, old.ID)
	require.NoError(t, err)
	var users []string
	for _, sh := range shares {
		users = append(users, sh.UserID)
		require.Equal(t, "Taxi", sh.Description)
		require.Equal(t, "10.00", sh.Amount.String())
	}
	require.ElementsMatch(t, []string{"1", "2"}, users)
	for _, tc := range []struct {
		user     string
		owes     int
		paidList int
	}{{"1", 1, 0}, {"2", 1, 0}, {"3", 0, 0}, {"4", 0, 1}} {
		owes := all(t, 10, func(a store.PageArgs) (store.Page[store.Share], error) { return f.ListUserShares(ctx, tc.user, a) })
		require.Len(t, owes, tc.owes, "user %s owes", tc.user)
		paid := all(t, 10, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, tc.user, a) })
		require.Len(t, paid, tc.paidList, "user %s paid", tc.user)
	}
	nets := f.nets(g.ID)
	require.Equal(t, map[string]string{"1": "-10.00", "2": "-10.00", "4": "20.00"}, nets)

	// The stale version is refused with the current one, and nothing changes.
	_, err = f.UpdateExpense(ctx, old, equalExpense(g, "1", "99.00", "1"), g.Title, "3")
	var stale *store.VersionConflict
	require.ErrorAs(t, err, &stale)
	require.Equal(t, 2, stale.Current)
	require.ErrorIs(t, err, store.ErrConflict)
	require.Equal(t, nets, f.nets(g.ID))

	revs, err := f.ListRevisions(ctx, g.ID, old.ID)
	require.NoError(t, err)
	require.Len(t, revs, 2)
	require.Equal(t, store.RevisionUpdated, revs[0].Action)
	require.Equal(t, "2", revs[0].EditorID)
	require.Equal(t, store.RevisionCreated, revs[1].Action)
}
