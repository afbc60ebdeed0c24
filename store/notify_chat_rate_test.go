package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTakeChatSlot(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 11, 25, 10, 0, 5, 0, time.UTC)
	for i := range 3 {
		ok, err := f.TakeChatSlot(ctx, "-100123", at.Add(time.Duration(i)*time.Second), 3)
		require.NoError(t, err)
		require.True(t, ok)
	}
	ok, err := f.TakeChatSlot(ctx, "-100123", at.Add(50*time.Second), 3)
	require.NoError(t, err)
	require.False(t, ok, "the minute is full")
	ok, err = f.TakeChatSlot(ctx, "-100999", at, 3)
	require.NoError(t, err)
	require.True(t, ok, "another chat has its own count")
	ok, err = f.TakeChatSlot(ctx, "-100123", at.Add(time.Minute), 3)
	require.NoError(t, err)
	require.True(t, ok, "the next minute")
}

func TestTakeBotSlot(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		ok, err := f.TakeBotSlot(ctx, at.Add(time.Duration(i)*100*time.Millisecond), 3)
		require.NoError(t, err)
		require.True(t, ok, "message %d of the second", i)
	}
	ok, err := f.TakeBotSlot(ctx, at.Add(900*time.Millisecond), 3)
	require.NoError(t, err)
	require.False(t, ok, "the second is full, whichever instance asks")
	ok, err = f.TakeBotSlot(ctx, at.Add(time.Second), 3)
	require.NoError(t, err)
	require.True(t, ok, "the next second has room")
}
