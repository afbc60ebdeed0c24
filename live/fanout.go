package live

import (
	"sync/atomic"
	"time"
)

// The server's share of a fan-out: from the hub taking a batch of a group's
// events to the last of its frames written to the sinks' connections (what
// the clients' own reading adds is theirs). A sink Holds the batch's Shared
// for each delivery it queues and Releases it once those events are written
// or skipped; the hub holds it while it delivers.

// ObserveFanout has the hub report each batch's fan-out time to observe
// (replacing any observer set before).
func (h *Hub) ObserveFanout(observe func(time.Duration)) {
	h.fanout.Store(&observe)
}

// newShared is what a batch's subscribers share, held by the hub until
// it has delivered the batch (release).
func (h *Hub) newShared(start time.Time) *Shared {
	s := &Shared{start: start}
	if f := h.fanout.Load(); f != nil {
		s.done = *f
	}
	s.pending.Store(1)
	return s
}

// Hold counts one more delivery of the batch as not yet written.
func (s *Shared) Hold() { s.pending.Add(1) }

// Release says a delivery of the batch is written (or will not be); the
// last one reports the fan-out's time.
func (s *Shared) Release() {
	if s.pending.Add(-1) == 0 && s.done != nil {
		s.done(time.Since(s.start))
	}
}

// fanoutObserver is the hub's observer of fan-out times.
type fanoutObserver = atomic.Pointer[func(time.Duration)]
