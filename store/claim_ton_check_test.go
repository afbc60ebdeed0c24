package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

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
