package telegram

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Telegram's sending limits (its bot FAQ): about 30 messages a second in
// all, at most 20 a minute to one group chat, and about one a second to one
// private chat.
const (
	GlobalPerSecond   = 30
	GroupPerMinute    = 20
	privateChatPeriod = time.Second
)

// Limiter spaces one process's messages so that they stay within Telegram's
// limits: the earliest moment each message may go, in a sliding window per
// chat and overall. It is safe for concurrent use.
// Several processes sending for one bot share the limits; each should hold a
// share of them (or the callers coordinate through the table).
type Limiter struct {
	mu     sync.Mutex
	now    func() time.Time
	global window
	chats  map[int64]*window
}

// window holds the moments of the last n sends within per.
type window struct {
	n     int
	per   time.Duration
	times []time.Time // oldest first, at most n
}

// next is the earliest moment at or after t that one more send fits.
func (w *window) next(t time.Time) time.Time {
	w.forget(t)
	if len(w.times) < w.n {
		return t
	}
	return later(t, w.times[len(w.times)-w.n].Add(w.per))
}

// record notes a send at t, keeping the moments in order (reservations
// made at nearly the same moment may arrive out of order).
func (w *window) record(t time.Time) {
	i := len(w.times)
	for i > 0 && w.times[i-1].After(t) {
		i--
	}
	w.times = slices.Insert(w.times, i, t)
	if len(w.times) > w.n {
		w.times = w.times[len(w.times)-w.n:]
	}
}

// forget drops the sends that left the window before t.
func (w *window) forget(t time.Time) {
	i := 0
	for i < len(w.times) && !w.times[i].Add(w.per).After(t) {
		i++
	}
	w.times = w.times[i:]
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// NewLimiter is a limiter on the clock now (time.Now when nil).
func NewLimiter(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{now: now, global: window{n: GlobalPerSecond, per: time.Second}, chats: map[int64]*window{}}
}

// Reserve books the next slot for a message to chatID within the chat's
// limit and returns how long to wait before sending it (group chats have
// negative ids). The overall limit is booked when the message is about to
// go (Wait), so that a group chat at its limit holds up no other chat.
func (l *Limiter) Reserve(chatID int64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.chats[chatID]
	if w == nil {
		w = &window{n: 1, per: privateChatPeriod}
		if chatID < 0 {
			w = &window{n: GroupPerMinute, per: time.Minute}
		}
		l.chats[chatID] = w
	}
	at := w.next(now)
	w.record(at)
	l.gc(now)
	return at.Sub(now)
}

// reserveGlobal books a slot within the overall limit for a message that
// goes now and returns how long to wait for it.
func (l *Limiter) reserveGlobal() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	at := l.global.next(now)
	l.global.record(at)
	return at.Sub(now)
}

// gc forgets chats with nothing in their window, so the map stays small.
func (l *Limiter) gc(now time.Time) {
	if len(l.chats) < 1024 {
		return
	}
	for id, w := range l.chats {
		if w.forget(now); len(w.times) == 0 {
			delete(l.chats, id)
		}
	}
}

// Wait blocks until a message to chatID may be sent within the chat's
// limit and the overall one, or ctx ends.
func (l *Limiter) Wait(ctx context.Context, chatID int64) error {
	if err := sleep(ctx, l.Reserve(chatID)); err != nil {
		return err
	}
	return sleep(ctx, l.reserveGlobal())
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
