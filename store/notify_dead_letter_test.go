package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestDeadLetters(t *testing.T) {
	f := newFixture(t)
	a, err := f.AddDeadLetter(ctx, store.DeadLetter{GroupID: "g1", ChatID: "-1001234567890", Text: "<b>x</b>", ButtonText: "Open", ButtonURL: "https://t.me/b/a?startapp=g1", Reason: "503"})
	require.NoError(t, err)
	b, err := f.AddDeadLetter(ctx, store.DeadLetter{GroupID: "g2", ChatID: "5000000001", Text: "y", Reason: "timeout"})
	require.NoError(t, err)
	got, err := f.ListDeadLetters(ctx)
	require.NoError(t, err)
	require.Equal(t, []store.DeadLetter{a, b}, got, "oldest first, as written")
	took, err := f.TakeDeadLetter(ctx, a)
	require.NoError(t, err)
	require.True(t, took)
	took, err = f.TakeDeadLetter(ctx, a)
	require.NoError(t, err)
	require.False(t, took, "a second replay does not take it again, so it is not sent twice")
	got, err = f.ListDeadLetters(ctx)
	require.NoError(t, err)
	require.Equal(t, []store.DeadLetter{b}, got)
}
