package redisbroker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/redistest"
	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// hubRecorder keeps what a Delivery passes on.
type hubRecorder struct{ inbox }

func (h *hubRecorder) Publish(ctx context.Context, events []store.Event) { h.deliver(ctx, events) }

// TestBrokerReportsAPubSubReconnectionAndTheGapIsFilled: the subscriber's
// pub/sub connection is killed; go-redis resubscribes quietly and what was
// published meanwhile never arrives. Err reports the reconnection (so the
// Delivery's fallback would read the stream), and the next event's gap is
// read from the table: the hub gets 1, 2, 3 in order.
func TestBrokerReportsAPubSubReconnectionAndTheGapIsFilled(t *testing.T) {
	srv := redistest.Start(t)
	pub, sub := newBroker(t, srv.URL()), newBroker(t, srv.URL())
	t.Cleanup(func() { pub.Close() })
	sub.WatchAll()
	table := []store.Event{{GroupID: "g", Seq: 1}, {GroupID: "g", Seq: 2}, {GroupID: "g", Seq: 3}}
	hub := &hubRecorder{}
	d := &live.Delivery{Hub: hub, Broker: sub, DownAfter: time.Hour, Order: &live.Order{Wait: 50 * time.Millisecond,
		Changes: func(_ context.Context, _ string, after int64) ([]store.Event, error) { return table[after:], nil }}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait(); sub.Close() })

	require.Eventually(t, func() bool {
		_ = pub.Publish(ctx, table[:1])
		return len(hub.seqs("g")) > 0
	}, 5*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool { return sub.Err() == nil }, 5*time.Second, 10*time.Millisecond)
	admin := redis.NewClient(&redis.Options{Addr: srv.URL()[len("redis://") : len(srv.URL())-2]})
	defer admin.Close()
	require.NoError(t, admin.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err())
	require.NoError(t, pub.Publish(ctx, table[1:2]), "the holder's publish succeeds: it checkpoints")
	errSeen := false
	for range 40 {
		if sub.Err() != nil {
			errSeen = true
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.True(t, errSeen, "the reconnection counts as an outage")
	require.NoError(t, pub.Publish(ctx, table[2:3]))
	require.Eventually(t, func() bool { return len(hub.seqs("g")) == 3 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, []int64{1, 2, 3}, hub.seqs("g"), "2, lost on the broker, read from the table")
}
