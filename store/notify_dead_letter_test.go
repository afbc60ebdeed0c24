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
	require.NoError(t, f.DeleteDeadLetter(ctx, a))
	got, err = f.ListDeadLetters(ctx)
	require.NoError(t, err)
	require.Equal(t, []store.DeadLetter{b}, got)
}
