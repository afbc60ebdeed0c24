package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const transferHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func (f fixture) submitted(g store.Group, total string) store.Settlement {
	f.t.Helper()
	st := f.settle(g, "1", "2", total, store.SettlementSent)
	st, err := f.SubmitSettlementTx(ctx, st, "ab"+transferHash[2:])
	require.NoError(f.t, err)
	return st
}

func TestSubmitSettlementTxStartsAVerification(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	st := f.submitted(g, "10.00")
	require.Equal(t, store.VerificationPending, st.Verification.State)
	require.Equal(t, "fracti-"+st.ID[:8]+st.ID[9:13]+st.ID[14:18]+st.ID[19:23]+st.ID[24:], st.Reference())

	got, err := f.getSettlement(st.ID)
	require.NoError(t, err)
	require.Equal(t, st, got)

	counter := &dynamotest.Counter{}
	reader := store.New(dynamotest.Client(t, counter.Option()), f.Table(), store.Options{CursorSecret: []byte("k")})
	due, err := reader.DueTonChecks(ctx, st.Verification.NextAt, 10)
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, st, due[0])
	require.Equal(t, map[string]int{"Query": 1}, counter.ByOperation(), "one Query of the index, no Scan")
	none, err := reader.DueTonChecks(ctx, st.Verification.NextAt.Add(-time.Millisecond), 10)
	require.NoError(t, err)
	require.Empty(t, none, "not due before its time")

	// A final settlement takes no transaction.
	done := f.settle(g, "1", "2", "1.00", store.SettlementCompleted)
	_, err = f.SubmitSettlementTx(ctx, done, transferHash)
	require.ErrorIs(t, err, store.ErrConflict)
}
