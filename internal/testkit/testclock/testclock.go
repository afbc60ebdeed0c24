// Package testclock is a clock that tests move by hand.
package testclock

import (
	"sync"
	"time"
)

// Clock tells the real time moved by everything Add added, or, made with
// At, a fixed time moved likewise. It is safe for concurrent use; the zero
// value starts at the real time.
type Clock struct {
	mu     sync.Mutex
	start  time.Time // zero: the real time
	offset time.Duration
}

// At is a clock standing at t until moved.
func At(t time.Time) *Clock { return &Clock{start: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.start.IsZero() {
		return time.Now().Add(c.offset)
	}
	return c.start.Add(c.offset)
}

// Add moves the clock by d (backwards when d is negative).
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}
