package live

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fracti/api/store"
)

// Sink takes a subscription's events without a goroutine waiting on a
// channel for them: a connection queues them for its one writer, which
// renders and sends them. Its methods are called under the hub's lock and
// must not block.
type Sink interface {
	// Deliver queues events of one group for the subscription, with what
	// every subscriber of these events shares; false means there is no room
	// (a slow consumer), and the hub drops the connection.
	Deliver(events []store.Event, shared *Shared) bool
	// Ended says the subscription is over (closed, or ended by the hub
	// because the membership ended): nothing more is delivered.
	Ended()
	// Opened hands the sink its subscription once the hub holds it, for the
	// sink to Close when its subscriber goes away (no context needs to
	// hold it meanwhile). It is called outside the hub's lock.
	Opened(s *Subscription)
}

// DroppedSink is a Sink told Dropped instead of Ended when its
// subscription ends because the hub drops its connection (a slow consumer,
// credentials that no longer hold): it must not complete the subscription,
// since a client that sees it completed would not subscribe again after
// the drop.
type DroppedSink interface {
	Sink
	// Dropped says the subscription is over and its connection is about to
	// be dropped: nothing more is delivered, and nothing is to be sent.
	Dropped()
}

type sinkKey struct{}

// WithSink makes the subscription opened on ctx deliver to sink instead of
// a channel.
func WithSink(ctx context.Context, sink Sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, sink)
}

func sinkFrom(ctx context.Context) Sink {
	s, _ := ctx.Value(sinkKey{}).(Sink)
	return s
}

// Shared is what the subscribers of one published batch of a group's events
// share on this instance: anything made once for all of them (the loaders
// of each event, each event's payload per selection), whichever subscriber
// asks first.
type Shared struct {
	mu    sync.Mutex
	cells map[any]*sharedCell

	start   time.Time // when the hub took the batch
	pending atomic.Int64
	done    func(time.Duration) // the hub's fan-out observer (fanout.go)
}

type sharedCell struct {
	ready chan struct{} // closed once v is made
	v     any
}

// Once returns the value for key, made by build the first time it is asked
// for; concurrent callers wait for that one. They wait on a channel the
// maker closes, which wakes them all at once (thousands of subscribers'
// writers may be waiting for one payload: a mutex would wake them one at a
// time).
func (s *Shared) Once(key any, build func() any) any {
	s.mu.Lock()
	if s.cells == nil {
		s.cells = map[any]*sharedCell{}
	}
	if c := s.cells[key]; c != nil {
		s.mu.Unlock()
		<-c.ready
		return c.v
	}
	c := &sharedCell{ready: make(chan struct{})}
	s.cells[key] = c
	s.mu.Unlock()
	defer close(c.ready) // a build that panics leaves nil
	c.v = build()
	return c.v
}

// Subscription's sink side.

// opened tells the sink, if any, that s is held.
func (s *Subscription) opened() {
	if s.sink != nil {
		s.sink.Opened(s)
	}
}

// HasSink reports whether the subscription delivers to a Sink (and has no
// channel).
func (s *Subscription) HasSink() bool { return s.sink != nil }

// Buffer is how many events a subscription may have waiting.
func (h *Hub) Buffer() int { return h.buffer }

// recentEvents is how many recently delivered events SharedFor knows, and
// recentFor how long: a channel subscriber that reads an event later than
// that makes its own reads, correct but not shared. The time bound keeps a
// quiet hub from holding its last 4096 events' Shared (their loaders'
// caches and payloads) for as long as any channel subscriber exists.
const (
	recentEvents = 4096
	recentFor    = time.Minute
)

// recentShared maps the events recently delivered to channel subscriptions
// to what their subscribers share: a ring, oldest first from oldest.
type recentShared struct {
	mu      sync.Mutex
	now     func() time.Time // time.Now; a test's clock
	byEvent map[*store.Event]*Shared
	ring    []recentEvent
	oldest  int
	n       int         // events in the ring
	sweeper *time.Timer // prunes a ring no put or lookup visits (a quiet hub)
}

// recentEvent is one event in the ring, and when it was put there.
type recentEvent struct {
	event *store.Event
	at    time.Time
}

func (r *recentShared) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

func (r *recentShared) put(events []store.Event, shared *Shared) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byEvent == nil {
		r.byEvent = make(map[*store.Event]*Shared, recentEvents)
		r.ring = make([]recentEvent, recentEvents)
	}
	now := r.clock()
	r.pruneLocked(now)
	for i := range events {
		if r.n == recentEvents {
			r.dropOldestLocked()
		}
		r.ring[(r.oldest+r.n)%recentEvents] = recentEvent{event: &events[i], at: now}
		r.byEvent[&events[i]] = shared
		r.n++
	}
	if r.sweeper == nil {
		r.sweeper = time.AfterFunc(recentFor, r.sweep)
	}
}

// sweep prunes the ring, and looks again while it holds anything.
func (r *recentShared) sweep() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked(r.clock())
	if r.n == 0 {
		r.sweeper = nil
		return
	}
	r.sweeper.Reset(recentFor)
}

// pruneLocked forgets the events put recentFor or more before now; r.mu
// is held.
func (r *recentShared) pruneLocked(now time.Time) {
	for r.n > 0 && now.Sub(r.ring[r.oldest].at) >= recentFor {
		r.dropOldestLocked()
	}
}

func (r *recentShared) dropOldestLocked() {
	delete(r.byEvent, r.ring[r.oldest].event)
	r.ring[r.oldest] = recentEvent{}
	r.oldest = (r.oldest + 1) % recentEvents
	r.n--
}

// SharedFor is what the subscribers of ev (as a subscription's channel
// yielded it) share on this instance, or nil when it is no longer known.
func (h *Hub) SharedFor(ev *store.Event) *Shared {
	h.recent.mu.Lock()
	defer h.recent.mu.Unlock()
	h.recent.pruneLocked(h.recent.clock())
	return h.recent.byEvent[ev]
}
