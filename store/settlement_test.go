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
