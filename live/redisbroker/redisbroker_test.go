package redisbroker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/redistest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// inbox gathers what a broker delivers.
type inbox struct {
	mu     sync.Mutex
	events []store.Event
}

func (in *inbox) deliver(_ context.Context, events []store.Event) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.events = append(in.events, events...)
}

func (in *inbox) seqs(group string) []int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := []int64{}
	for _, ev := range in.events {
		if ev.GroupID == group {
			out = append(out, ev.Seq)
		}
	}
	return out
}

func receiving(t *testing.T, b *Broker) *inbox {
	in := &inbox{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Receive(ctx, in.deliver) }()
	t.Cleanup(func() { cancel(); <-done; b.Close() })
	return in
}

func newBroker(t *testing.T, url string) *Broker {
	b, err := New(url, "T", nil)
	require.NoError(t, err)
	return b
}

// TestBrokerCarriesWatchedGroupsAndJoinsOnly: an instance receives the
// groups it watches, whole events in order; a member_joined also reaches
// the joining user's channel, and a group_created its creator's; an
// unwatched group does not arrive.
func TestBrokerCarriesWatchedGroupsAndJoinsOnly(t *testing.T) {
	srv := redistest.Start(t)
	pub, sub := newBroker(t, srv.URL()), newBroker(t, srv.URL())
	in := receiving(t, sub)
	sub.WatchGroup("g1")
	sub.WatchUser("u7")
	at := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	require.Eventually(t, func() bool {
		// Subscribing is queued: publish until it holds.
		require.NoError(t, pub.Publish(context.Background(), []store.Event{{GroupID: "g1", Seq: 1, Type: store.EventExpenseCreated, At: at}}))
		return len(in.seqs("g1")) > 0
	}, 5*time.Second, 20*time.Millisecond)
	before := len(in.seqs("g1"))
	joined := store.Event{GroupID: "g2", Seq: 9, Type: store.EventMemberJoined, At: at, Subject: store.Subject{Kind: store.SubjectMember, ID: "u7"}}
	require.NoError(t, pub.Publish(context.Background(), []store.Event{
		{GroupID: "g1", Seq: 2, Type: store.EventExpenseCreated, At: at},
		{GroupID: "g1", Seq: 3, Type: store.EventExpenseUpdated, At: at, Changes: []store.Change{{Field: "amount"}}},
		{GroupID: "g2", Seq: 8, Type: store.EventExpenseCreated, At: at},
		joined,
		{GroupID: "g3", Seq: 1, Type: store.EventGroupCreated, ActorID: "u7", At: at},
		{GroupID: "g3", Seq: 2, Type: store.EventGroupImported, ActorID: "u7", At: at},
	}))
	require.Eventually(t, func() bool { return len(in.seqs("g2")) == 1 && len(in.seqs("g3")) == 1 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, []int64{1}, in.seqs("g3"), "the group u7 created, through the user's channel")
	// Probes of seq 1 still on their way may land after before was taken:
	// what follows it, probes aside, is 2 then 3.
	var after []int64
	for _, seq := range in.seqs("g1")[before:] {
		if seq != 1 {
			after = append(after, seq)
		}
	}
	require.Equal(t, []int64{2, 3}, after)
	require.Equal(t, []int64{9}, in.seqs("g2"), "only the join, through the user's channel")
	in.mu.Lock()
	require.Contains(t, in.events, joined, "an event arrives whole")
	in.mu.Unlock()
}

// TestBrokerReportsAnOutageAndResubscribes: Err says when the server is
// gone and clears when it is back, and the subscription holds again.
func TestBrokerReportsAnOutageAndResubscribes(t *testing.T) {
	srv := redistest.Start(t)
	pub, sub := newBroker(t, srv.URL()), newBroker(t, srv.URL())
	sub.WatchAll()
	in := receiving(t, sub)
	require.Eventually(t, func() bool { return sub.Err() == nil }, 5*time.Second, 10*time.Millisecond)
	srv.Kill()
	require.Eventually(t, func() bool { return sub.Err() != nil }, 5*time.Second, 10*time.Millisecond)
	require.Error(t, pub.Publish(context.Background(), []store.Event{{GroupID: "g", Seq: 1}}))
	srv.Restart()
	require.Eventually(t, func() bool { return sub.Err() == nil }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		_ = pub.Publish(context.Background(), []store.Event{{GroupID: "g", Seq: 2}})
		return len(in.seqs("g")) > 0
	}, 15*time.Second, 50*time.Millisecond, "the pattern subscription came back with the server")
}
