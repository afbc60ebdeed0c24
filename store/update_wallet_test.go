package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestUpdateWallet(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")
	const wallet = "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL"

	m, err := f.UpdateWallet(ctx, g.ID, "1", wallet)
	require.NoError(t, err)
	require.Equal(t, wallet, m.Wallet)
	got, err := f.getMember(g.ID, "1")
	require.NoError(t, err)
	require.Equal(t, wallet, got.Wallet)

	m, err = f.UpdateWallet(ctx, g.ID, "1", "")
	require.NoError(t, err)
	require.Empty(t, m.Wallet)

	_, err = f.UpdateWallet(ctx, g.ID, "2", wallet)
	require.ErrorIs(t, err, store.ErrNotFound)
}
