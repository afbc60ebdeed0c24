package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/internal/dynamotest"
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

func TestClaimTonCheckIsExclusive(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	st := f.submitted(g, "10.00")
	next := st.Verification.NextAt.Add(time.Minute)
	claimed, ok, err := f.ClaimTonCheck(ctx, st, next)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1, claimed.Verification.Attempts)
	_, ok, err = f.ClaimTonCheck(ctx, st, next) // another checker, with what it read before
	require.NoError(t, err)
	require.False(t, ok)

	// A check records only for the attempt it claimed.
	_, ok, err = f.RecordTonCheck(ctx, st, store.VerificationFailed, "stale")
	require.NoError(t, err)
	require.False(t, ok)
	failed, ok, err := f.RecordTonCheck(ctx, claimed, store.VerificationFailed, "the transfer went elsewhere")
	require.NoError(t, err)
	require.True(t, ok)
	got, err := f.getSettlement(st.ID)
	require.NoError(t, err)
	require.Equal(t, failed.Verification.Reason, got.Verification.Reason)
	require.Equal(t, store.VerificationFailed, got.Verification.State)
	require.Equal(t, store.SettlementSent, got.Status)
	due, err := f.DueTonChecks(ctx, next.Add(time.Hour), 10)
	require.NoError(t, err)
	require.Empty(t, due, "a failed verification leaves the index")

	// It may be submitted again, with another transaction.
	again, err := f.SubmitSettlementTx(ctx, got, transferHash)
	require.NoError(t, err)
	require.Equal(t, store.VerificationPending, again.Verification.State)
	require.Zero(t, again.Verification.Attempts)
}

func TestCompleteTonSettlementOncePerPayment(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	a, b := f.submitted(g, "10.00"), f.submitted(g, "10.00")
	claimA, _, err := f.ClaimTonCheck(ctx, a, time.Now())
	require.NoError(t, err)
	claimB, _, err := f.ClaimTonCheck(ctx, b, time.Now())
	require.NoError(t, err)

	done, err := f.CompleteTonSettlement(ctx, claimA, transferHash)
	require.NoError(t, err)
	require.Equal(t, store.SettlementCompleted, done.Status)
	require.Equal(t, "1", done.ConfirmedBy)
	require.Equal(t, map[string]string{"1": "10.00", "2": "-10.00"}, f.nets(g.ID))
	used, err := f.TonPaymentUsedBy(ctx, transferHash)
	require.NoError(t, err)
	require.Equal(t, a.ID, used)

	// The same payment cannot complete another settlement: nothing moves.
	_, err = f.CompleteTonSettlement(ctx, claimB, transferHash)
	require.ErrorIs(t, err, store.ErrTonPaymentUsed)
	// Nor the same settlement twice (a second checker).
	_, err = f.CompleteTonSettlement(ctx, claimA, "00"+transferHash[2:])
	require.ErrorIs(t, err, store.ErrConflict)
	require.Equal(t, map[string]string{"1": "10.00", "2": "-10.00"}, f.nets(g.ID))
	got, err := f.getSettlement(b.ID)
	require.NoError(t, err)
	require.Equal(t, store.SettlementSent, got.Status)
	require.Equal(t, store.VerificationPending, got.Verification.State)
}
