package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListUserTokens(t *testing.T) {
	f := newFixture(t)
	never, err := f.CreateToken(ctx, store.Token{Hash: "a", UserID: "1", Name: "Ann"})
	require.NoError(t, err)
	_, err = f.CreateToken(ctx, store.Token{Hash: "b", UserID: "1", Name: "Ann",
		ExpiresAt: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}) // already expired on the fixture's clock
	require.NoError(t, err)
	later, err := f.CreateToken(ctx, store.Token{Hash: "c", UserID: "1", Name: "Ann", Scopes: []string{"READ"},
		ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	_, err = f.CreateToken(ctx, store.Token{Hash: "d", UserID: "2", Name: "Bob"})
	require.NoError(t, err)
	g := f.group("1") // a membership under USER#1 in GSI1 is not a token

	got, err := f.ListUserTokens(ctx, "1")
	require.NoError(t, err)
	require.Equal(t, []store.Token{later, never}, got, "live tokens only, newest first")

	none, err := f.ListUserTokens(ctx, "3")
	require.NoError(t, err)
	require.Empty(t, none)
	require.NotEmpty(t, g.ID)
}
