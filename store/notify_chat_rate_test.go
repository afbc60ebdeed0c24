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
