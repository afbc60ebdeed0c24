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

// Letters queued together are in the outbox (not among the dead letters)
// with every field; each is taken once.
func TestOutbox(t *testing.T) {
	f := newFixture(t)
	queued, err := f.QueueLetters(ctx, []store.Letter{
		{GroupID: "g1", ChatID: "5000000002", Text: "you owe", ButtonText: "Open", ButtonURL: "https://t.me/b/a?startapp=g1",
			FallbackText: "a reminder for Boris"},
		{GroupID: "g1", ChatID: "-1001234567890", Text: "a reminder for Carla", Attempts: 1, Reason: "timeout"},
	})
	require.NoError(t, err)
	require.Len(t, queued, 2)
	require.NotEmpty(t, queued[0].ID)
	got, err := f.ListQueued(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, queued, got, "queued in one millisecond: in either order")
	dead, err := f.ListDeadLetters(ctx)
	require.NoError(t, err)
	require.Empty(t, dead)
	took, err := f.TakeQueued(ctx, queued[0])
	require.NoError(t, err)
	require.True(t, took)
	took, err = f.TakeQueued(ctx, queued[0])
	require.NoError(t, err)
	require.False(t, took, "taken once: sent once")
	got, err = f.ListQueued(ctx)
	require.NoError(t, err)
	require.Equal(t, queued[1:], got)
}
