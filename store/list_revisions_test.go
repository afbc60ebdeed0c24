package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// An expense's first revision is not stored until it changes: until then
// it is made from the expense, and its first change stores that very
// revision with its own, in the same transaction. Only an expense too large
// for its first change to carry one more item stores it at once.
func TestFirstRevisionWaitsForTheFirstChange(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "30.00", "1", "2", "3")

	stored, err := f.ListRevisions(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Empty(t, stored, "nothing stored at creation")
	read, err := f.getExpense(e.ID)
	require.NoError(t, err)
	made, err := f.ListExpenseRevisions(ctx, &read)
	require.NoError(t, err)
	require.Len(t, made, 1)
	require.Equal(t, store.RevisionCreated, made[0].Action)
	require.Equal(t, 1, made[0].Version)
	require.Equal(t, "1", made[0].EditorID)
	require.Equal(t, e.CreatedAt, made[0].At)
	require.Equal(t, store.ExpenseDisplay(&read), replay(made), "it shows the expense as it is")

	next := equalExpense(g, "1", "45.00", "1", "2", "3")
	updated, err := f.UpdateExpense(ctx, read, next, g.Title, "2")
	require.NoError(t, err)
	stored, err = f.ListRevisions(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Len(t, stored, 2, "the first change stored both")
	require.Equal(t, made[0], stored[1], "the first revision, as it was shown before")
	again, err := f.ListExpenseRevisions(ctx, &updated)
	require.NoError(t, err)
	require.Equal(t, stored, again)
	require.Equal(t, store.ExpenseDisplay(&updated), replay(again))

	// Deleting an expense never edited stores its first revision too.
	other := f.expense(g, "2", "12.00", "2", "3")
	_, err = f.DeleteExpense(ctx, other, "2")
	require.NoError(t, err)
	stored, err = f.ListRevisions(ctx, g.ID, other.ID)
	require.NoError(t, err)
	require.Len(t, stored, 2)
	require.Equal(t, store.RevisionCreated, stored[1].Action)
}

// The largest expense stores its first revision at creation: its first
// change could not carry it.
func TestLargestExpenseStoresItsFirstRevisionAtOnce(t *testing.T) {
	f := newFixture(t)
	users := make([]string, store.MaxExpenseParticipants)
	for i := range users {
		users[i] = fmt.Sprint(1000 + i)
	}
	g := f.group(users...)
	e := f.expense(g, users[0], "1000.00", users...)
	stored, err := f.ListRevisions(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Len(t, stored, 1)
	require.Equal(t, store.RevisionCreated, stored[0].Action)
}

// replay is the expense as its revisions show it, oldest first.
func replay(revs []store.Revision) map[string]string {
	shown := map[string]string{}
	for i := len(revs) - 1; i >= 0; i-- {
		for _, c := range revs[i].Changes {
			if c.After == nil {
				delete(shown, c.Field)
			} else {
				shown[c.Field] = *c.After
			}
		}
	}
	return shown
}
