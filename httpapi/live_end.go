package httpapi

import (
	"context"
	"sync"
)

// A WebSocket outlives its HTTP handler: once the upgrade is done and
// connection_init accepted, the transport hands the connection to a reader
// goroutine of its own and the handler returns, so that the request's
// goroutine (and its grown stack) and net/http's buffers are not kept by an
// idle connection. What the layers around the handler do when a connection
// ends (release its slot under LIVE_MAX_CONNECTIONS, end its count in the
// metrics, write its log line) then happens when the connection ends, not
// when the handler returns: each layer hands that work to the connection's
// liveEnd.

// liveEnd runs the work of a live connection's layers when it ends.
type liveEnd struct {
	mu       sync.Mutex
	detached bool     // the transport took the connection over
	ended    bool     // the taken-over connection is over
	fns      []func() // to run when it is, innermost layer first
}

type liveEndKey struct{}

// withLiveEnd gives a live connection's request its liveEnd.
func withLiveEnd(ctx context.Context) (context.Context, *liveEnd) {
	e := &liveEnd{}
	return context.WithValue(ctx, liveEndKey{}, e), e
}

// liveEndFrom is ctx's liveEnd; without one, work runs when it is handed
// over, as when the handler returns.
func liveEndFrom(ctx context.Context) *liveEnd {
	if e, ok := ctx.Value(liveEndKey{}).(*liveEnd); ok {
		return e
	}
	return &liveEnd{}
}

// after runs fn now (the handler is returning), or, when the transport took
// the connection over and it has not ended yet, when it ends.
func (e *liveEnd) after(fn func()) {
	e.mu.Lock()
	if e.detached && !e.ended {
		e.fns = append(e.fns, fn)
		e.mu.Unlock()
		return
	}
	e.mu.Unlock()
	fn()
}

// detach says the transport takes the connection over: the handler returns
// before it ends.
func (e *liveEnd) detach() {
	e.mu.Lock()
	e.detached = true
	e.mu.Unlock()
}

// end is the end of a connection the transport took over: the work handed
// over so far runs now, and any handed over later at once.
func (e *liveEnd) end() {
	e.mu.Lock()
	fns := e.fns
	e.fns, e.ended = nil, true
	e.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
