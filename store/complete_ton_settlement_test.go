package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

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
