package store_test

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// noDrift checks the stored balances against a recomputation from the
// group's expenses and settlements.
func (f fixture) noDrift(groupID string) {
	f.t.Helper()
	re, err := f.RecomputeBalances(ctx, groupID)
	require.NoError(f.t, err)
	kept, err := f.StoredBalances(ctx, groupID)
	require.NoError(f.t, err)
	for _, b := range kept.Books {
		require.Empty(f.t, b.Diff(re.Books[b.Currency]))
	}
}

func TestAddPlaceholder(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")
	ph, err := f.AddPlaceholder(ctx, g.ID, "Carol", "1")
	require.NoError(t, err)
	require.True(t, store.IsPlaceholderID(ph.UserID))
	require.True(t, ph.Placeholder)
	require.Equal(t, "1", ph.AddedBy)
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.MemberCount)

	// It pays and owes like anyone.
	f.expense(g, ph.UserID, "30.00", "1", ph.UserID)
	require.Equal(t, map[string]string{"1": "-15.00", ph.UserID: "15.00"}, f.nets(g.ID))

	_, err = f.AddPlaceholder(ctx, g.ID, "Eve", "9")
	require.ErrorIs(t, err, store.ErrNotFound, "only a member adds placeholders")
}

// A claim cut short by a failure shows the end state in balances all along,
// keeps the stored balances exact, and finishes when called again.
func TestInterruptedClaimShowsNoHalfMovedBalances(t *testing.T) {
	var armed atomic.Bool
	var writes atomic.Int64
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "TransactWriteItems" && armed.Load() && writes.Add(1) == 4 {
			return errors.New("injected: connection reset")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	g := f.group("1", "2")
	ph, err := f.AddPlaceholder(ctx, g.ID, "Carol", "1")
	require.NoError(t, err)
	for range 6 {
		f.expense(g, "1", "30.00", "1", "2", ph.UserID)
	}
	f.settle(g, ph.UserID, "1", "10.00", store.SettlementCompleted)
	_, _, err = f.JoinGroup(ctx, g.ID, user("3"))
	require.NoError(t, err)
	claimer, err := f.getMember(g.ID, "3")
	require.NoError(t, err)
	want := map[string]string{"1": "110.00", "2": "-60.00", "3": "-50.00"}

	armed.Store(true)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, claimer)
	require.ErrorContains(t, err, "injected")
	armed.Store(false)

	// Two expenses moved (after the start), four did not.
	naming := func(u string) int {
		n := 0
		for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) }) {
			if slices.ContainsFunc(e.Splits, func(s store.Split) bool { return s.UserID == u }) {
				n++
			}
		}
		return n
	}
	require.Equal(t, 2, naming("3"))
	require.Equal(t, 4, naming(ph.UserID))
	require.Equal(t, want, f.nets(g.ID), "members see the end state")
	f.noDrift(g.ID)

	// Another user cannot take over a claim under way.
	two, err := f.getMember(g.ID, "2")
	require.NoError(t, err)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, two)
	require.ErrorIs(t, err, store.ErrConflict)

	done, err := f.ClaimPlaceholder(ctx, g.ID, ph.UserID, claimer)
	require.NoError(t, err)
	require.Equal(t, "3", done.ClaimedBy)
	require.NotNil(t, done.LeftAt)
	require.Equal(t, 6, naming("3"))
	require.Zero(t, naming(ph.UserID))
	require.Equal(t, want, f.nets(g.ID))
	f.noDrift(g.ID)
	st := all(t, 100, func(a store.PageArgs) (store.Page[store.Settlement], error) { return f.ListSettlements(ctx, g.ID, a) })
	require.Equal(t, "3", st[0].FromUserID)
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 3, got.MemberCount)
	gbs, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Equal(t, []string{"1", "2", "3"}, gbs[0].MemberIDs)
	require.Empty(t, gbs[0].Claims)
}
