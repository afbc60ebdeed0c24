package quota

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memStore is the table's counters in memory, with every call counted. The
// store's own AddUsage and GetUsage are tested against DynamoDB Local.
type memStore struct {
	mu     sync.Mutex
	counts map[string][2]int64
	adds   int
	fail   bool
}

func (s *memStore) AddUsage(_ context.Context, userID, day string, reads, writes int64) (int64, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adds++
	if s.fail {
		return 0, 0, errors.New("table unreachable")
	}
	if s.counts == nil {
		s.counts = map[string][2]int64{}
	}
	c := s.counts[userID+day]
	c[Read] += reads
	c[Write] += writes
	s.counts[userID+day] = c
	return c[Read], c[Write], nil
}

func (s *memStore) GetUsage(_ context.Context, userID, day string) (int64, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts[userID+day]
	return c[Read], c[Write], nil
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

var ctx = context.Background()

func TestSampledCounting(t *testing.T) {
	st := &memStore{}
	c := &clock{time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	m := New(Limits{ReadsPerDay: 1000, WritesPerDay: 1000, Sample: 10}, st, c.now)
	for range 30 {
		require.NoError(t, m.Allow(ctx, "1", Read))
	}
	require.Equal(t, 3, st.adds, "the day's first request, then one in ten")
	u, err := m.Today(ctx, "1")
	require.NoError(t, err)
	require.Equal(t, int64(30), u.Reads, "the table's count plus this instance's unflushed ones")
	require.Equal(t, "2026-11-23", u.Day)
	require.Equal(t, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), u.ResetsAt)
}

func TestDailyLimit(t *testing.T) {
	st := &memStore{}
	c := &clock{time.Date(2026, 11, 23, 23, 0, 0, 0, time.UTC)}
	m := New(Limits{ReadsPerDay: 100, WritesPerDay: 3, Sample: 1}, st, c.now)
	for range 3 {
		require.NoError(t, m.Allow(ctx, "1", Write))
	}
	err := m.Allow(ctx, "1", Write)
	var ex *ExceededError
	require.ErrorAs(t, err, &ex)
	require.Equal(t, 3600, ex.RetryAfterSeconds(), "until midnight UTC")
	require.Contains(t, ex.Error(), "daily limit of 3 writes")
	require.NoError(t, m.Allow(ctx, "1", Read), "reads have their own limit")
	require.NoError(t, m.Allow(ctx, "2", Write), "and every user their own")

	c.t = c.t.Add(time.Hour) // a new day
	require.NoError(t, m.Allow(ctx, "1", Write))
}

// Several instances share the table's totals: one learns at its next flush
// what the others counted.
func TestLimitAcrossInstances(t *testing.T) {
	st := &memStore{}
	c := &clock{time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	a := New(Limits{WritesPerDay: 10, Sample: 1}, st, c.now)
	b := New(Limits{WritesPerDay: 10, Sample: 1}, st, c.now)
	for range 6 {
		require.NoError(t, a.Allow(ctx, "1", Write))
	}
	for range 4 {
		require.NoError(t, b.Allow(ctx, "1", Write))
	}
	require.Error(t, a.Allow(ctx, "1", Write))
	require.Error(t, b.Allow(ctx, "1", Write))
}

func TestCountingFailsOpen(t *testing.T) {
	st := &memStore{fail: true}
	m := New(Limits{ReadsPerDay: 2, Sample: 1}, st, nil)
	require.NoError(t, m.Allow(ctx, "1", Read), "an unreachable table does not refuse requests")
	st.fail = false
	require.NoError(t, m.Allow(ctx, "1", Read))
	r, _, err := st.GetUsage(ctx, "1", time.Now().UTC().Format(DayLayout))
	require.NoError(t, err)
	require.Equal(t, int64(2), r, "what failed to flush is added later")
	require.Error(t, m.Allow(ctx, "1", Read))
}

func TestAnonymousRate(t *testing.T) {
	c := &clock{time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	m := New(Limits{AnonymousPerMinute: 6}, nil, c.now)
	for range 6 {
		require.NoError(t, m.AllowAnonymous("192.0.2.1"))
	}
	err := m.AllowAnonymous("192.0.2.1")
	var ex *ExceededError
	require.ErrorAs(t, err, &ex)
	require.Equal(t, 10, ex.RetryAfterSeconds(), "one request every 10 s")
	require.NoError(t, m.AllowAnonymous("192.0.2.2"), "another address has its own bucket")
	c.t = c.t.Add(10 * time.Second)
	require.NoError(t, m.AllowAnonymous("192.0.2.1"))
	require.Error(t, m.AllowAnonymous("192.0.2.1"))
}

func TestMemoryIsBounded(t *testing.T) {
	st := &memStore{}
	m := New(Limits{ReadsPerDay: 10, AnonymousPerMinute: 1, Sample: 1}, st, nil)
	for i := range maxTracked + 10 {
		require.NoError(t, m.Allow(ctx, string(rune(i)), Read))
		require.NoError(t, m.AllowAnonymous(string(rune(i))))
	}
	require.LessOrEqual(t, len(m.users), maxTracked)
	require.LessOrEqual(t, len(m.anon), maxTracked)
}
