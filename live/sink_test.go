package live

import (
	"context"
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// sink records what the hub hands it.
type sink struct {
	mu      sync.Mutex
	room    int // events it takes before it is full
	seqs    []int64
	shared  []*Shared
	ended   bool
	opened  *Subscription
	refused bool
}

func (k *sink) Deliver(events []store.Event, shared *Shared) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.seqs)+len(events) > k.room {
		k.refused = true
		return false
	}
	for _, ev := range events {
		k.seqs = append(k.seqs, ev.Seq)
	}
	k.shared = append(k.shared, shared)
	return true
}

func (k *sink) Ended()                 { k.mu.Lock(); k.ended = true; k.mu.Unlock() }
func (k *sink) Opened(s *Subscription) { k.mu.Lock(); k.opened = s; k.mu.Unlock() }

func TestHubDeliversToSinksWithWhatTheEventsSubscribersShare(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true, "ben": true}}}
	h := NewHub(m, 0, nil)
	ann, ben := &sink{room: 10}, &sink{room: 10}
	a, err := h.SubscribeGroup(WithSink(context.Background(), ann), "ann", "g")
	require.NoError(t, err)
	require.True(t, a.HasSink())
	require.Nil(t, a.Events(), "no channel, no buffer")
	require.Same(t, a, ann.opened)
	_, err = h.SubscribeUser(WithSink(context.Background(), ben), "ben")
	require.NoError(t, err)

	h.Publish(context.Background(), events("g", 1, 3))
	require.Equal(t, []int64{1, 2, 3}, ann.seqs)
	require.Equal(t, []int64{1, 2, 3}, ben.seqs)
	require.Same(t, ann.shared[0], ben.shared[0], "one Shared per batch, for all its subscribers")
	require.Equal(t, "made once", ann.shared[0].Once("k", func() any { return "made once" }))
	require.Equal(t, "made once", ben.shared[0].Once("k", func() any { return "made twice" }))
	require.Nil(t, h.SharedFor(&events("g", 1, 1)[0]), "sinks need no lookup by event")

	// Ben leaves: his every-group subscription stays, and gets nothing of g.
	m.set("g", "ben", false)
	h.Publish(context.Background(), events("g", 4, 4))
	require.Equal(t, []int64{1, 2, 3, 4}, ann.seqs)
	require.Equal(t, []int64{1, 2, 3}, ben.seqs)
	require.False(t, ben.ended)

	// A full sink is a slow consumer: the subscription ends.
	dropped := make(chan error, 1)
	full := &sink{room: 1}
	ctx := WithConnection(WithSink(context.Background(), full), &Connection{Drop: func(err error) { dropped <- err }})
	_, err = h.SubscribeGroup(ctx, "ann", "g")
	require.NoError(t, err)
	h.Publish(context.Background(), events("g", 5, 6))
	require.True(t, full.refused)
	require.True(t, full.ended)
	require.ErrorIs(t, <-dropped, ErrSlowConsumer)

	a.Close()
	require.True(t, ann.ended)
	require.Equal(t, 1, h.Count(), "ben's")
}

func TestHubRemembersWhatChannelSubscribersOfAnEventShare(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true, "ben": true}}}
	h := NewHub(m, 0, nil)
	a, err := h.SubscribeGroup(context.Background(), "ann", "g")
	require.NoError(t, err)
	b, err := h.SubscribeGroup(context.Background(), "ben", "g")
	require.NoError(t, err)
	h.Publish(context.Background(), events("g", 1, 2))
	ea, eb := <-a.Events(), <-b.Events()
	require.Same(t, ea, eb, "the same event")
	require.NotNil(t, h.SharedFor(ea))
	require.Same(t, h.SharedFor(ea), h.SharedFor(<-a.Events()), "one Shared per batch")
}
