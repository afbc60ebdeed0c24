// Package quota limits how much one user may ask of the API per day, and
// how fast anyone without credentials may ask at all. Daily counts live in
// the table (one item per user and day, kept by atomic ADD), but are
// sampled: each instance counts in memory and adds its counts to the table
// on a user's first request of the day and then once every Sample requests,
// so that counting adds no DynamoDB call to most requests.
package quota

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Kind is what an operation counts as.
type Kind int

// The kinds of operations.
const (
	// Read is a query (and a subscription).
	Read Kind = iota
	// Write is a mutation.
	Write
)

func (k Kind) String() string {
	if k == Write {
		return "writes"
	}
	return "reads"
}

// Limits are the daily limits per user and the rate without credentials.
// A zero limit means no limit of that kind.
type Limits struct {
	// ReadsPerDay and WritesPerDay bound a user's operations per UTC day.
	ReadsPerDay, WritesPerDay int64
	// Sample is how many of a user's requests an instance counts in memory
	// before it adds them to the table (1: every request; default 10).
	Sample int
	// AnonymousPerMinute bounds requests without valid credentials per
	// client address and instance (a burst of as many, refilled evenly).
	AnonymousPerMinute int
}

// Store keeps the daily counters; the store implements it.
type Store interface {
	// AddUsage adds to the user's counters of the day and returns the totals.
	AddUsage(ctx context.Context, userID, day string, reads, writes int64) (reads2, writes2 int64, err error)
	// GetUsage reads the user's counters of the day.
	GetUsage(ctx context.Context, userID, day string) (reads, writes int64, err error)
}

// ExceededError is a request refused for a limit.
type ExceededError struct {
	// What was exceeded, for the message.
	What string
	// RetryAfter is when asking again can succeed.
	RetryAfter time.Duration
}

func (e *ExceededError) Error() string {
	return fmt.Sprintf("rate limited: %s; retry in %d seconds", e.What, e.RetryAfterSeconds())
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1.
func (e *ExceededError) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// DayLayout is how days are named: the UTC date.
const DayLayout = time.DateOnly

// maxTracked bounds the users and addresses an instance keeps counts for.
const maxTracked = 10_000

// Meter enforces Limits; use it through a pointer. The zero value is not
// usable: make one with New.
type Meter struct {
	limits Limits
	store  Store
	now    func() time.Time

	mu    sync.Mutex
	users map[string]*userCount
	anon  map[string]*bucket
}

// userCount is one user's counts on this instance for one day.
type userCount struct {
	day      string
	known    [2]int64 // the table's totals at the last flush
	pending  [2]int64 // counted here since then
	synced   bool     // a flush has told this instance the day's totals
	flushing bool
}

// New returns a Meter; now nil means time.Now.
func New(limits Limits, store Store, now func() time.Time) *Meter {
	if limits.Sample <= 0 {
		limits.Sample = 10
	}
	if now == nil {
		now = time.Now
	}
	return &Meter{limits: limits, store: store, now: now, users: map[string]*userCount{}, anon: map[string]*bucket{}}
}

// Limits are the meter's limits.
func (m *Meter) Limits() Limits { return m.limits }

func (m *Meter) limit(k Kind) int64 {
	if k == Write {
		return m.limits.WritesPerDay
	}
	return m.limits.ReadsPerDay
}

// untilTomorrow is how long until the next UTC day, when daily counts start again.
func untilTomorrow(now time.Time) time.Duration {
	d := now.UTC().Truncate(24 * time.Hour)
	return d.Add(24 * time.Hour).Sub(now)
}

// Allow counts one operation of kind by the user, or refuses it with an
// *ExceededError when the user's day is used up (as far as this instance
// knows: the table's totals at its last flush plus its own counts since).
// A failure to reach the table lets the request through: counting must
// never take the API down with it.
func (m *Meter) Allow(ctx context.Context, userID string, kind Kind) error {
	limit := m.limit(kind)
	if limit <= 0 || m.store == nil {
		return nil
	}
	now := m.now()
	day := now.UTC().Format(DayLayout)

	m.mu.Lock()
	u := m.users[userID]
	if u == nil || u.day != day {
		if u == nil && len(m.users) >= maxTracked {
			m.forgetUsers(day)
		}
		u = &userCount{day: day}
		m.users[userID] = u
	}
	if u.known[kind]+u.pending[kind] >= limit {
		m.mu.Unlock()
		return m.exceeded(kind, now)
	}
	u.pending[kind]++
	flush := !u.flushing && (!u.synced || u.pending[Read]+u.pending[Write] >= int64(m.limits.Sample))
	var add [2]int64
	if flush {
		add, u.pending, u.flushing = u.pending, [2]int64{}, true
	}
	m.mu.Unlock()
	if !flush {
		return nil
	}

	reads, writes, err := m.store.AddUsage(ctx, userID, day, add[Read], add[Write])
	m.mu.Lock()
	defer m.mu.Unlock()
	u.flushing = false
	if err != nil {
		u.pending[Read] += add[Read] // count them again at the next flush
		u.pending[Write] += add[Write]
		return nil
	}
	u.known, u.synced = [2]int64{reads, writes}, true
	if u.known[kind] > limit {
		// Other instances used the day up meanwhile.
		return m.exceeded(kind, now)
	}
	return nil
}

func (m *Meter) exceeded(kind Kind, now time.Time) error {
	return &ExceededError{
		What:       fmt.Sprintf("the daily limit of %d %s is used up", m.limit(kind), kind),
		RetryAfter: untilTomorrow(now),
	}
}

// forgetUsers drops, to bound memory, the counts of other days, then those
// with nothing unflushed, then all. Called with m.mu held.
func (m *Meter) forgetUsers(day string) {
	for id, u := range m.users {
		if u.day != day || (u.pending == [2]int64{} && !u.flushing) {
			delete(m.users, id)
		}
	}
	if len(m.users) >= maxTracked {
		clear(m.users)
	}
}

// Usage is a user's counts and limits today.
type Usage struct {
	Day                   string
	Reads, Writes         int64
	ReadLimit, WriteLimit int64 // 0: no limit
	ResetsAt              time.Time
}

// Today is the user's counts of today: the table's totals plus what this
// instance has counted and not yet added.
func (m *Meter) Today(ctx context.Context, userID string) (Usage, error) {
	now := m.now()
	day := now.UTC().Format(DayLayout)
	out := Usage{Day: day, ReadLimit: m.limits.ReadsPerDay, WriteLimit: m.limits.WritesPerDay, ResetsAt: now.Add(untilTomorrow(now))}
	if m.store == nil {
		return out, nil
	}
	reads, writes, err := m.store.GetUsage(ctx, userID, day)
	if err != nil {
		return Usage{}, err
	}
	out.Reads, out.Writes = reads, writes
	m.mu.Lock()
	defer m.mu.Unlock()
	if u := m.users[userID]; u != nil && u.day == day {
		out.Reads += u.pending[Read]
		out.Writes += u.pending[Write]
	}
	return out, nil
}

// bucket is a token bucket of one client address.
type bucket struct {
	tokens float64
	at     time.Time
}

// AllowAnonymous takes one request from the client address's bucket, or
// refuses it with an *ExceededError saying when the next one is allowed.
func (m *Meter) AllowAnonymous(addr string) error {
	perMinute := m.limits.AnonymousPerMinute
	if perMinute <= 0 {
		return nil
	}
	now := m.now()
	rate := float64(perMinute) / 60 // per second
	burst := float64(perMinute)

	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.anon[addr]
	if b == nil {
		if len(m.anon) >= maxTracked {
			m.forgetAddresses(now, rate, burst)
		}
		b = &bucket{tokens: burst, at: now}
		m.anon[addr] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		return &ExceededError{
			What:       fmt.Sprintf("at most %d requests a minute without credentials", perMinute),
			RetryAfter: time.Duration((1 - b.tokens) / rate * float64(time.Second)),
		}
	}
	b.tokens--
	return nil
}

// forgetAddresses drops full buckets (they hold nothing a new one would
// not), then all. Called with m.mu held.
func (m *Meter) forgetAddresses(now time.Time, rate, burst float64) {
	for addr, b := range m.anon {
		if b.tokens+now.Sub(b.at).Seconds()*rate >= burst {
			delete(m.anon, addr)
		}
	}
	if len(m.anon) >= maxTracked {
		clear(m.anon)
	}
}

// clientAddrKey carries the request's client address.
type clientAddrKey struct{}

// WithClientAddr returns a copy of ctx carrying the client's address, which
// AllowAnonymous limits by.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// ClientAddr is the client address ctx carries ("" if none).
func ClientAddr(ctx context.Context) string {
	addr, _ := ctx.Value(clientAddrKey{}).(string)
	return addr
}
