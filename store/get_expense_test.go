package store_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
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

// An edit's read: the expense's latest version and the group's items it
// names, in one call, aligned with the keys (an item that does not exist
// reads as nothing); a deleted expense reads as its tombstone.
func TestCurrentExpenseWith(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	keys := []store.GroupItemKey{store.GroupKey(g.ID), store.MemberKey{GroupID: g.ID, UserID: "2"}.Item(), store.MemberKey{GroupID: g.ID, UserID: "9"}.Item()}

	calls.Reset()
	got, items, err := f.CurrentExpenseWith(ctx, e.Ref(), keys)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"BatchGetItem": 1}, calls.ByOperation())
	require.Equal(t, e, *got)
	require.Len(t, items, len(keys))
	require.Equal(t, g.ID, items[0].Group.ID)
	require.Equal(t, "2", items[1].Member.UserID)
	require.Equal(t, store.GroupItem{}, items[2], "no such member")

	_, err = f.DeleteExpense(ctx, e, "1")
	require.NoError(t, err)
	got, items, err = f.CurrentExpenseWith(ctx, e.Ref(), keys[:1])
	require.NoError(t, err)
	require.NotNil(t, got.DeletedAt)
	require.Len(t, items, 1)
}
