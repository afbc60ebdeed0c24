package httpapi

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fracti/api/graph"
)

// A flood of live connections must not take the instance down: each holds
// a file descriptor for as long as it lasts, and a process out of
// descriptors accepts nothing at all, health checks and metrics scrapes
// included. So an instance holds at most LiveLimits.MaxConnections, and
// refuses more with 503 before it reads, authenticates or upgrades
// anything.

// DefaultMaxConnections is the cap on live connections when none is set,
// derived from the process's file descriptor limit (RLIMIT_NOFILE, which Go
// raises to its hard limit at start): the limit less a reserve for
// everything else the process holds open (ordinary requests and their
// keep-alive connections, DynamoDB connections, files). The reserve is the
// larger of 1024 and a fifth of the limit, and leaves live connections at
// least half of it: 65536 descriptors give 52429 live connections, 20000
// give 16000, 1024 give 512 (an
// unreadable limit counts as 8192).
func DefaultMaxConnections() int { return maxConnectionsFor(openFileLimit()) }

// maxConnectionsFor is DefaultMaxConnections for a descriptor limit.
func maxConnectionsFor(nofile uint64) int {
	// An unlimited limit is no reason to hold a million connections: memory
	// runs out long before.
	const ceiling = 1 << 20
	n := min(nofile, ceiling)
	if n == 0 {
		n = unknownLimit
	}
	reserve := min(max(1024, n/5), n-n/2)
	return int(n - reserve)
}

// unknownLimit stands for a descriptor limit that cannot be read.
const unknownLimit = 8192

// Retry-After of a connection refused at the cap: a few seconds, spread so
// that the clients refused together do not all come back together.
const (
	retryAfterMin    = 5
	retryAfterSpread = 10
)

// connectionCap counts the live connections an instance holds against its
// cap.
type connectionCap struct {
	max    int64
	held   atomic.Int64
	warned atomic.Int64 // when a refusal was last logged (Unix seconds)
}

// take takes a slot, if one is free; release gives it back (once).
func (c *connectionCap) take() (release func(), ok bool) {
	if c.held.Add(1) > c.max {
		c.held.Add(-1)
		return nil, false
	}
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			c.held.Add(-1)
		}
	}, true
}

// shouldWarn reports whether a refusal now is to be logged: one line a
// minute at most, however many are refused.
func (c *connectionCap) shouldWarn(now time.Time) bool {
	last := c.warned.Load()
	return now.Unix()-last >= 60 && c.warned.CompareAndSwap(last, now.Unix())
}

// admit takes one of the instance's live connection slots for r, or
// refuses r with 503 and Retry-After, closing the connection it came on so
// that its descriptor is free at once.
func (l *liveTransports) admit(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if release, ok := l.held.take(); ok {
		return release, true
	}
	l.metrics.LiveConnectionRefused(transportName(r))
	if l.held.shouldWarn(time.Now()) {
		l.log.WarnContext(r.Context(), "live connections refused: this instance holds as many as it may (LIVE_MAX_CONNECTIONS)",
			"max", l.held.max)
	}
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterMin+rand.IntN(retryAfterSpread+1)))
	w.Header().Set("Connection", "close")
	writeError(r.Context(), w, l.metrics, http.StatusServiceUnavailable, graph.CodeUnavailable,
		"this server instance holds as many live connections as it may: try again later")
	return nil, false
}
