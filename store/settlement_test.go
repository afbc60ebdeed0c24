package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCreateAndGetSettlement(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	st := f.settle(g, "2", "1", "25.00", store.SettlementPending)
	require.Nil(t, st.CompletedAt)

	got, err := f.getSettlement(st.ID) // access pattern 8
	require.NoError(t, err)
	require.Equal(t, st, got)

	done := f.settle(g, "2", "1", "5.00", store.SettlementCompleted)
	require.Equal(t, done.CreatedAt, *done.CompletedAt)

	_, err = f.getSettlement("missing")
	require.ErrorIs(t, err, store.ErrNotFound)

	batch, err := f.GetSettlements(ctx, []store.SettlementRef{{ID: done.ID}, {ID: st.ID, GroupID: g.ID, CreatedAt: st.CreatedAt}, {ID: "missing"}})
	require.NoError(t, err)
	require.Equal(t, done, *batch[0])
	require.Equal(t, st, *batch[1])
	require.Nil(t, batch[2])
}

func TestCreateSettlementNeedsBothMembers(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	_, err := f.CreateSettlement(ctx, store.Settlement{GroupID: g.ID, FromUserID: "1", ToUserID: "3", Amount: amount("1.00"), Status: store.SettlementPending}, "")
	require.ErrorIs(t, err, store.ErrNotFound)
	p, err := f.ListSettlements(ctx, g.ID, store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Empty(t, p.Items)
}

func TestUpdateSettlementTransitions(t *testing.T) {
	completed, failed, pending := store.SettlementCompleted, store.SettlementFailed, store.SettlementPending
	for _, tc := range []struct {
		name     string
		from     store.SettlementStatus
		to       store.SettlementStatus
		conflict bool
	}{
		{"pending to completed", pending, completed, false},
		{"pending to failed", pending, failed, false},
		{"pending to pending", pending, pending, true},
		{"completed to failed", completed, failed, true},
		{"completed to pending", completed, pending, true},
		{"completed to completed", completed, completed, true},
		{"failed to completed", failed, completed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			g := f.group("1", "2")
			st := f.settle(g, "1", "2", "3.00", tc.from)
			got, err := f.UpdateSettlement(ctx, st, store.SettlementChange{Status: &tc.to}, "1")
			if tc.conflict {
				require.ErrorIs(t, err, store.ErrConflict)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.to, got.Status)
			require.Equal(t, tc.to == completed, got.CompletedAt != nil)
			stored, err := f.getSettlement(st.ID)
			require.NoError(t, err)
			require.Equal(t, got, stored)
		})
	}
}

func TestUpdateSettlementTxHashOnly(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	st := f.settle(g, "1", "2", "3.00", store.SettlementPending)
	hash := "a1b2c3"
	got, err := f.UpdateSettlement(ctx, st, store.SettlementChange{TxHash: &hash}, "1")
	require.NoError(t, err)
	require.Equal(t, hash, got.TxHash)
	require.Equal(t, store.SettlementPending, got.Status)
}

func TestCompleteSettlementConcurrentlyOnce(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	st := f.settle(g, "1", "2", "3.00", store.SettlementPending)
	to := store.SettlementCompleted

	var wg sync.WaitGroup
	results := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.UpdateSettlement(ctx, st, store.SettlementChange{Status: &to}, "1")
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	ok := 0
	for err := range results {
		if err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, store.ErrConflict)
		}
	}
	require.Equal(t, 1, ok)
}

func TestListSettlements(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	a := f.settle(g, "1", "2", "1.00", store.SettlementPending)
	b := f.settle(g, "2", "1", "2.00", store.SettlementCompleted)
	got := all(t, 1, func(p store.PageArgs) (store.Page[store.Settlement], error) { return f.ListSettlements(ctx, g.ID, p) }) // access pattern 5
	require.Equal(t, []store.Settlement{b, a}, got)

	mine := all(t, 5, func(p store.PageArgs) (store.Page[store.Settlement], error) {
		return f.ListUserSettlements(ctx, "2", p)
	}) // access pattern 12
	require.Equal(t, []store.Settlement{b}, mine)
}

// A placeholder cannot sign in, so another member confirms a payment to it on
// its behalf, and is recorded as having done so. The write itself checks
// that the placeholder is still unclaimed and still the recipient: a
// confirmation read before a claim began, or before the claim moved the
// settlement to the real user, does not go through, and the claimer confirms.
func TestConfirmingForAPlaceholderLosesToAClaim(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	ph, err := f.AddPlaceholder(ctx, g.ID, "Grandma", "1")
	require.NoError(t, err)
	f.expense(g, ph.UserID, "60.00", "1", ph.UserID) // 1 owes Grandma 30
	completed := store.SettlementCompleted

	paid := f.settle(g, "1", ph.UserID, "20.00", store.SettlementSent)
	done, err := f.UpdateSettlement(ctx, paid, store.SettlementChange{Status: &completed}, "2")
	require.NoError(t, err)
	require.Equal(t, "2", done.ConfirmedBy)
	got, err := f.getSettlement(paid.ID)
	require.NoError(t, err)
	require.Equal(t, done, got, "the settlement records who confirmed it")
	require.Equal(t, map[string]string{"1": "-10.00", ph.UserID: "10.00"}, f.nets(g.ID))
	events, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	require.Equal(t, store.EventSettlementCompleted, events.Items[0].Type)
	require.Equal(t, "2", events.Items[0].ActorID, "the event names the confirmer")

	// The store takes nothing else from a third member.
	rest := f.settle(g, "1", ph.UserID, "10.00", store.SettlementSent)
	failed := store.SettlementFailed
	_, err = f.UpdateSettlement(ctx, rest, store.SettlementChange{Status: &failed}, "2")
	require.Error(t, err)

	// 3 begins to claim Grandma, and the claim stops at an expense naming
	// both: the settlement still names the placeholder, but the claimer is
	// the one to confirm it now.
	both := f.expense(g, "1", "4.00", "3", ph.UserID)
	claimer, err := f.getMember(g.ID, "3")
	require.NoError(t, err)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, claimer)
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = f.UpdateSettlement(ctx, rest, store.SettlementChange{Status: &completed}, "2")
	require.ErrorIs(t, err, store.ErrConflict)
	got, err = f.getSettlement(rest.ID)
	require.NoError(t, err)
	require.Equal(t, store.SettlementSent, got.Status)
	require.Equal(t, ph.UserID, got.ToUserID)

	// Once the claim has moved it, the stale read still fails (the recipient
	// is the real user now), and the real user confirms as usual.
	_, err = f.UpdateExpense(ctx, both, equalExpense(g, "1", "4.00", "1", "3"), g.Title, "1")
	require.NoError(t, err)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, claimer)
	require.NoError(t, err)
	_, err = f.UpdateSettlement(ctx, rest, store.SettlementChange{Status: &completed}, "2")
	require.ErrorIs(t, err, store.ErrConflict)
	moved, err := f.getSettlement(rest.ID)
	require.NoError(t, err)
	require.Equal(t, "3", moved.ToUserID)
	require.Equal(t, store.SettlementSent, moved.Status)
	done, err = f.UpdateSettlement(ctx, moved, store.SettlementChange{Status: &completed}, "3")
	require.NoError(t, err)
	require.Equal(t, "3", done.ConfirmedBy)
	require.Equal(t, map[string]string{"1": "2.00", "3": "-2.00"}, f.nets(g.ID), "all but the edited dinner is settled")
	f.noDrift(g.ID)
}
