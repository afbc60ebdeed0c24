package live

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/stretchr/testify/require"
)

// What channel subscribers of an event share is known for recentFor, then
// forgotten: the hub no longer keeps it (nor its loaders' caches and
// payloads) alive, though channel subscribers remain.
func TestHubForgetsWhatChannelSubscribersSharedAfterAWhile(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	clock := testclock.At(time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC))
	h.recent.now = clock.Now
	a, err := h.SubscribeGroup(context.Background(), "ann", "g")
	require.NoError(t, err)

	h.Publish(context.Background(), events("g", 1, 1))
	ev := <-a.Events()
	shared := h.SharedFor(ev)
	require.NotNil(t, shared)
	shared.Once("payload", func() any { return make([]byte, 1<<20) })
	gone := weak.Make(shared)
	shared = nil

	clock.Add(recentFor - time.Second)
	require.NotNil(t, h.SharedFor(ev), "still recent")
	clock.Add(time.Second)
	require.Nil(t, h.SharedFor(ev), "forgotten after recentFor")
	require.Zero(t, h.recent.n)
	runtime.GC()
	require.Nil(t, gone.Value(), "nothing in the hub keeps it alive")

	// Later events are known again, the ring's slots reused.
	h.Publish(context.Background(), events("g", 2, 3))
	require.NotNil(t, h.SharedFor(<-a.Events()))
	require.Equal(t, 2, h.recent.n)
	require.NotNil(t, a)
}
