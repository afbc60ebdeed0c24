package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestRevokeToken(t *testing.T) {
	f := newFixture(t)
	ann, err := f.CreateToken(ctx, store.Token{Hash: "a", UserID: "1", Name: "Ann"})
	require.NoError(t, err)
	keep, err := f.CreateToken(ctx, store.Token{Hash: "k", UserID: "1", Name: "Ann"})
	require.NoError(t, err)

	// Another user's token, an unknown id and an empty one: the same not found.
	for _, tc := range []struct{ user, id string }{{"2", ann.ID}, {"1", "no-such-id"}, {"1", ""}} {
		_, err = f.RevokeToken(ctx, tc.user, tc.id)
		require.ErrorIs(t, err, store.ErrNotFound, "%+v", tc)
	}
	_, err = f.LookupToken(ctx, "a")
	require.NoError(t, err, "still there")

	revoked, err := f.RevokeToken(ctx, "1", ann.ID)
	require.NoError(t, err)
	require.Equal(t, "a", revoked.Hash, "the hash, for the cache to drop")
	_, err = f.LookupToken(ctx, "a")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = f.RevokeToken(ctx, "1", ann.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "revoking twice")

	left, err := f.ListUserTokens(ctx, "1")
	require.NoError(t, err)
	require.Equal(t, []store.Token{keep}, left)
}
