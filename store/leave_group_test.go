package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestLeaveGroup(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "30.00", "1", "2") // 2 owes 1 fifteen

	_, err := f.LeaveGroup(ctx, g.ID, "2", "")
	require.ErrorIs(t, err, store.ErrConflict, "not while owing")
	_, err = f.LeaveGroup(ctx, g.ID, "1", "")
	require.ErrorIs(t, err, store.ErrConflict, "not while owed")

	m, err := f.LeaveGroup(ctx, g.ID, "3", "") // never involved: zero
	require.NoError(t, err)
	require.NotNil(t, m.LeftAt)
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.MemberCount)
	members := all(t, 10, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListMembers(ctx, g.ID, a) })
	require.Len(t, members, 2, "former members are not listed")
	groups, err := f.ListUserGroups(ctx, "3", store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Empty(t, groups.Items)
	former, err := f.getMember(g.ID, "3")
	require.NoError(t, err)
	require.False(t, former.Active(), "the membership stays, marked as ended")

	// A former member can be in no new expense or settlement.
	_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "3.00", "1", "3"), "")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = f.LeaveGroup(ctx, g.ID, "3", "")
	require.ErrorIs(t, err, store.ErrNotFound)

	// Once settled, 2 may leave; the expense involving them can no longer be deleted.
	f.settle(g, "2", "1", "15.00", store.SettlementCompleted)
	_, err = f.LeaveGroup(ctx, g.ID, "2", "")
	require.NoError(t, err)
	_, err = f.DeleteExpense(ctx, e, "1")
	require.ErrorIs(t, err, store.ErrConflict)

	// Joining again makes 3 a member again.
	m, joined, err := f.JoinGroup(ctx, g.ID, user("3"))
	require.NoError(t, err)
	require.True(t, joined)
	require.True(t, m.Active())
	got, err = f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.MemberCount)
}

func TestFormerMembersListsHideTheGroup(t *testing.T) {
	f := newFixture(t)
	a := f.group("1", "2")
	b := f.group("1", "2")
	f.expense(a, "2", "10.00", "1", "2")
	f.expense(b, "2", "10.00", "1", "2")
	f.settle(a, "1", "2", "5.00", store.SettlementCompleted)
	owes, err := f.ListUserShares(ctx, "1", store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Len(t, owes.Items, 2)

	_, err = f.LeaveGroup(ctx, a.ID, "1", "")
	require.NoError(t, err)
	owes, err = f.ListUserShares(ctx, "1", store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Len(t, owes.Items, 1)
	require.Equal(t, b.ID, owes.Items[0].GroupID)
	sts, err := f.ListUserSettlements(ctx, "1", store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Empty(t, sts.Items)
}

// Leaving races with expenses that involve the leaver: either the expense
// lands first and the leave is refused, or the leave lands first and the
// expense is refused. Never a former member with a balance.
func TestLeaveRacesExpenses(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, _ = f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "2.00", "1", "2"), "")
		}()
		go func() {
			defer wg.Done()
			_, _ = f.LeaveGroup(ctx, g.ID, "2", "")
		}()
	}
	wg.Wait()
	m, err := f.getMember(g.ID, "2")
	require.NoError(t, err)
	nets := f.nets(g.ID)
	if !m.Active() {
		require.Empty(t, nets["2"], "a former member has no balance")
	}
	re, err := f.RecomputeBalances(ctx, g.ID)
	require.NoError(t, err)
	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Empty(t, gb[0].Book(usd).Diff(re.Books[usd]))
}
