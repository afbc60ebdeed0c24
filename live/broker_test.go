package live

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// fakeBroker is a Broker in memory: what is published is kept, what the
// test sends on recv is received, and err says it is down.
type fakeBroker struct {
	mu        sync.Mutex
	err       error
	published []store.Event
	recv      chan []store.Event
}

func (b *fakeBroker) Publish(_ context.Context, events []store.Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	b.published = append(b.published, events...)
	return nil
}

func (b *fakeBroker) Receive(ctx context.Context, deliver func(context.Context, []store.Event)) {
	for {
		select {
		case <-ctx.Done():
			return
		case evs := <-b.recv:
			deliver(ctx, evs)
		}
	}
}

func (b *fakeBroker) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func (b *fakeBroker) setErr(err error) {
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
}

func (b *fakeBroker) seqs() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return seqsOf(b.published)
}

func (b *fakeBroker) WatchAll()           {}
func (b *fakeBroker) WatchGroup(string)   {}
func (b *fakeBroker) UnwatchGroup(string) {}
func (b *fakeBroker) WatchUser(string)    {}
func (b *fakeBroker) UnwatchUser(string)  {}

// fakeHub keeps what it is given.
type fakeHub struct {
	mu     sync.Mutex
	events []store.Event
}

func (h *fakeHub) Publish(_ context.Context, events []store.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, events...)
}

func (h *fakeHub) seqs() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return seqsOf(h.events)
}

func runDelivery(t *testing.T, d *Delivery) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestDeliveryAtCommitOnceWhicheverWayItComes: an event committed here is
// published and delivered at once; the same event from the broker (the
// lease holder publishing it from the stream) is dropped, and so is one
// arriving out of order twice.
func TestDeliveryAtCommitOnceWhicheverWayItComes(t *testing.T) {
	hub, b := &fakeHub{}, &fakeBroker{recv: make(chan []store.Event)}
	d := &Delivery{Hub: hub, Broker: b}
	runDelivery(t, d)
	d.Committed(store.Event{GroupID: "g", Seq: 2})
	require.Eventually(t, func() bool { return len(hub.seqs()) == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{2}, b.seqs(), "published at commit")
	b.recv <- evs("g", 1, 2, 3)
	b.recv <- evs("g", 3, 1)
	b.recv <- evs("h", 2)
	require.Eventually(t, func() bool { return len(hub.seqs()) == 4 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{2, 1, 3, 2}, hub.seqs())
}

// TestDeliveryFallsBackToTheStreamWhileTheBrokerIsDown: a broker failing
// for DownAfter starts the fallback reader (counted), which keeps the
// instance serving; the broker back for Grace stops it.
func TestDeliveryFallsBackToTheStreamWhileTheBrokerIsDown(t *testing.T) {
	f := newFakeStream()
	f.addShard("s1", "")
	hub, b := &fakeHub{}, &fakeBroker{recv: make(chan []store.Event)}
	var mu sync.Mutex
	var turns []bool
	d := &Delivery{Hub: hub, Broker: b, DownAfter: 50 * time.Millisecond, Grace: 300 * time.Millisecond,
		Fallback: func() *Tailer {
			return &Tailer{API: f, StreamARN: func(context.Context) (string, error) { return "arn:fake", nil },
				Poll: time.Millisecond, FromStart: true}
		},
		OnFallback: func(on bool) { mu.Lock(); turns = append(turns, on); mu.Unlock() }}
	runDelivery(t, d)
	require.NoError(t, d.Status())
	b.setErr(errors.New("connection refused"))
	require.Eventually(t, func() bool { return d.Falling() && d.Status() == nil }, 5*time.Second, time.Millisecond,
		"the instance reads the stream itself and serves on")
	b.setErr(nil)
	require.Eventually(t, func() bool { return !d.Falling() }, 5*time.Second, time.Millisecond, "back to the broker")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []bool{true, false}, turns)
}
