package telegram_test

import (
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

func TestLimiterKeepsTelegramsLimits(t *testing.T) {
	clock := testclock.At(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	l := telegram.NewLimiter(clock.Now)
	const group = int64(-1001234567890)

	// 20 messages to one group chat go at once; the 21st a minute after the first.
	for i := range telegram.GroupPerMinute {
		require.Zero(t, l.Reserve(group), "message %d", i)
	}
	require.Equal(t, time.Minute, l.Reserve(group))
	require.Equal(t, time.Minute, l.Reserve(group), "the 22nd waits for the second slot to free")
	// Another chat is not held up by that one.
	require.Zero(t, l.Reserve(-1009999999999))

	// A private chat: one a second.
	require.Zero(t, l.Reserve(5000000001))
	require.Equal(t, time.Second, l.Reserve(5000000001))
	clock.Add(time.Second)
	require.Equal(t, time.Second, l.Reserve(5000000001), "the one booked for now+1s is next")

	// As time passes the group chat's window frees.
	clock.Add(2 * time.Minute)
	require.Zero(t, l.Reserve(group))
}
