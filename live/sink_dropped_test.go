package live

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// droppedSink records whether its subscription ended or was dropped.
type droppedSink struct {
	sink
	dropped bool
}

func (k *droppedSink) Dropped() { k.mu.Lock(); k.dropped = true; k.mu.Unlock() }

// A subscription that ends because its connection is dropped (a slow
// consumer, a membership no longer allowed) is told Dropped, not Ended: its
// client must not see it completed before the close, or it would not
// subscribe again. One that ends otherwise is told Ended.
func TestHubTellsADroppedSinkItIsDroppedNotEnded(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	dropped := make(chan error, 1)
	full := &droppedSink{sink: sink{room: 1}}
	ctx := WithConnection(WithSink(context.Background(), full), &Connection{Drop: func(err error) { dropped <- err }})
	_, err := h.SubscribeGroup(ctx, "ann", "g")
	require.NoError(t, err)
	h.Publish(context.Background(), events("g", 1, 2))
	require.ErrorIs(t, <-dropped, ErrSlowConsumer)
	require.True(t, full.dropped)
	require.False(t, full.ended, "no complete before the drop")

	closed := &droppedSink{sink: sink{room: 10}}
	s, err := h.SubscribeGroup(WithSink(context.Background(), closed), "ann", "g")
	require.NoError(t, err)
	s.Close()
	require.True(t, closed.ended)
	require.False(t, closed.dropped)
}
