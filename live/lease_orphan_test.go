package live

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// ambiguousRenew applies a renewal but reports a transport error once, as
// a timed-out response (or an SDK retry of an applied write) does.
type ambiguousRenew struct {
	*store.Store
	fail atomic.Bool
}

func (a *ambiguousRenew) RenewLease(ctx context.Context, l store.Lease) (store.Lease, error) {
	r, err := a.Store.RenewLease(ctx, l)
	if err == nil && a.fail.CompareAndSwap(true, false) {
		return store.Lease{}, errors.New("read tcp: i/o timeout")
	}
	return r, err
}

// TestLeasesKeepALeaseWhoseRenewalAnswerWasLost: a renewal applied in the
// table but reported as failed leaves the table's counter ahead of the
// holder's; the holder adopts it (the owner is still itself) and goes on
// reading, instead of dropping the shard without releasing it and never
// reading it again.
func TestLeasesKeepALeaseWhoseRenewalAnswerWasLost(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a := newLeased(t, f, s, clock, "a")
	amb := &ambiguousRenew{Store: s}
	a.Leases = amb
	a.step(t)
	require.Equal(t, []string{"s1"}, a.Held())
	amb.fail.Store(true)
	a.step(t) // renewal applied, reported as failed
	a.step(t) // counter differs from what a remembers: reader dropped, lease not released
	for range 10 {
		clock.Add(time.Hour)
		a.step(t)
	}
	f.put("s1", 1)
	require.Equal(t, []string{"s1"}, a.Held(), "the only instance still reads its own shard")
	require.Eventually(t, func() bool { return len(a.c.numbers()) == 1 }, 5*time.Second, time.Millisecond, "the record is read")
}
