package loaders_test

import (
	"context"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestWroteDropsWhatTheWriteChanged(t *testing.T) {
	calls := &dynamotest.Counter{}
	s := dynamotest.Store(t, calls.Option())
	g, other := newGroup(t, s, "Trip"), newGroup(t, s, "Flat")
	e := newExpense(t, s, g)

	ctx := loaders.With(context.Background(), loaders.New(s, time.Millisecond))
	// loadEverything reads, one at a time, everything the loaders cache of the group.
	loadEverything := func() (*store.Group, *store.GroupBalances) {
		t.Helper()
		got, err := loaders.Group(ctx, g.ID)
		require.NoError(t, err)
		gb, err := loaders.Balances(ctx, g.ID)
		require.NoError(t, err)
		for _, ref := range []store.ExpenseRef{e.Ref(), {ID: e.ID}} {
			found, err := loaders.Expense(ctx, ref)
			require.NoError(t, err)
			require.Equal(t, e.ID, found.ID)
		}
		m, err := loaders.Member(ctx, g.ID, "2")
		require.NoError(t, err)
		require.Equal(t, got.MemberCount == 2, m != nil)
		return got, gb
	}
	loadEverything()

	// Another group's write leaves this group's entries alone, but for the
	// expense loaded by id alone: the cache cannot know its group.
	loaders.Wrote(ctx, other.ID)
	calls.Reset()
	loadEverything()
	require.Equal(t, map[string]int{"Query": 1}, calls.ByOperation())

	// A join changes the group, its members and its balances' member list.
	_, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: "2", Name: "B"})
	require.NoError(t, err)
	loaders.Wrote(ctx, g.ID)
	calls.Reset()
	got, gb := loadEverything()
	require.Equal(t, 2, got.MemberCount)
	require.Equal(t, []string{"1", "2"}, gb.MemberIDs)
	// Group, ledger and books, the expense by key and by id, the member:
	// everything of the group read again.
	require.Equal(t, map[string]int{"BatchGetItem": 5, "Query": 1}, calls.ByOperation())
}

func TestPrimeMemberReplacesWhatWasCached(t *testing.T) {
	s := dynamotest.Store(t)
	g := newGroup(t, s, "T")
	ctx := loaders.With(context.Background(), loaders.New(s, time.Millisecond))
	cached, err := loaders.Member(ctx, g.ID, "1")
	require.NoError(t, err)
	require.Empty(t, cached.Wallet)

	m := *cached
	m.Wallet = "UQ-changed"
	loaders.PrimeMember(ctx, &m)
	got, err := loaders.Member(ctx, g.ID, "1")
	require.NoError(t, err)
	require.Equal(t, "UQ-changed", got.Wallet)
}
