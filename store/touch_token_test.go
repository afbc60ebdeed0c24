package store_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestTouchTokenWritesOncePerDay(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	_, err := f.CreateToken(ctx, store.Token{Hash: "a", UserID: "1", Name: "Ann"})
	require.NoError(t, err)

	for _, step := range []struct {
		day     string
		written bool
		want    string
	}{
		{"2024-01-20", true, "2024-01-20"},  // never used: written
		{"2024-01-20", false, "2024-01-20"}, // the same day again: not written
		{"2024-01-19", false, "2024-01-20"}, // an older day never goes back
		{"2024-01-21", true, "2024-01-21"},  // the next day
	} {
		written, err := f.TouchToken(ctx, "a", step.day)
		require.NoError(t, err)
		require.Equal(t, step.written, written, step.day)
		got, err := f.LookupToken(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, step.want, got.LastUsedAt)
	}

	calls.Reset()
	written, err := f.TouchToken(ctx, "gone", "2024-01-21")
	require.NoError(t, err)
	require.False(t, written, "a revoked token is not recreated")
	require.Equal(t, map[string]int{"UpdateItem": 1}, calls.ByOperation())
	_, err = f.LookupToken(ctx, "gone")
	require.ErrorIs(t, err, store.ErrNotFound)
}
