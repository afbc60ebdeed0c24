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

// collect is an Order's Out that records the sequences passed on.
func collect(got *[]int64) func(context.Context, []store.Event) {
	return func(_ context.Context, evs []store.Event) {
		for _, e := range evs {
			*got = append(*got, e.Seq)
		}
	}
}

// TestOrderPassesOnAnEventOlderThanTheFirstSeen: this process's own
// commit (8) may come before another writer's earlier event (7): 7 is
// passed on late, not dropped as a repeat.
func TestOrderPassesOnAnEventOlderThanTheFirstSeen(t *testing.T) {
	var got []int64
	o := &Order{Out: collect(&got)}
	ctx := context.Background()
	o.Take(ctx, evs("g", 8))
	o.Take(ctx, evs("g", 7))
	o.Take(ctx, evs("g", 7, 8))
	require.Equal(t, []int64{8, 7}, got)
}

// TestOrderTooMuchWaitingReadsTheGapButDoesNotSkipIt: past MaxPending the
// gap is read at once, but one failed read does not give it up.
func TestOrderTooMuchWaitingReadsTheGapButDoesNotSkipIt(t *testing.T) {
	var got []int64
	now := time.Unix(1000, 0)
	o := &Order{MaxPending: 2, Now: func() time.Time { return now }, Out: collect(&got),
		Changes: func(context.Context, string, int64) ([]store.Event, error) {
			return nil, errors.New("throttled")
		}}
	ctx := context.Background()
	o.Take(ctx, evs("g", 1))
	o.Take(ctx, evs("g", 3, 4, 5))
	o.Fill(ctx)
	require.Equal(t, []int64{1}, got, "one failed read with no time waited skips nothing")
	o.Take(ctx, evs("g", 2))
	require.Equal(t, []int64{1, 2, 3, 4, 5}, got)
}

// TestOrderGiveUpClockStartsAgainWhenAGapIsFilled: a gap that opens while
// an older one waits gets its own time before it is given up.
func TestOrderGiveUpClockStartsAgainWhenAGapIsFilled(t *testing.T) {
	var got []int64
	now := time.Unix(1000, 0)
	fail := true
	o := &Order{Now: func() time.Time { return now }, Out: collect(&got),
		Changes: func(_ context.Context, g string, after int64) ([]store.Event, error) {
			if fail || after >= 2 {
				return nil, context.DeadlineExceeded
			}
			return evs(g, 2), nil
		}}
	ctx := context.Background()
	o.Take(ctx, evs("g", 1))
	o.Take(ctx, evs("g", 3))
	now = now.Add(9 * time.Second)
	o.Fill(ctx) // gap 2 unreadable for 9 s
	o.Take(ctx, evs("g", 5))
	fail = false
	now = now.Add(600 * time.Millisecond)
	o.Fill(ctx) // 2 read, 3 follows; 5 waits for 4 from now
	now = now.Add(time.Second)
	o.Fill(ctx)
	require.Equal(t, []int64{1, 2, 3}, got, "gap 4 has waited a second, not ten")
	o.Take(ctx, evs("g", 4))
	require.Equal(t, []int64{1, 2, 3, 4, 5}, got)
}

// TestOrderASlowGroupHoldsUpNoOther: Out runs without Order's lock, so a
// group whose delivery waits (a membership read) does not hold up another
// group, nor the caller (the broker's receive loop) for that other group.
func TestOrderASlowGroupHoldsUpNoOther(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	o := &Order{Out: func(_ context.Context, evs []store.Event) {
		if evs[0].GroupID == "slow" {
			once.Do(func() { close(started) })
			<-release
		}
	}}
	ctx := context.Background()
	go o.Take(ctx, evs("slow", 1))
	<-started
	done := make(chan struct{})
	go func() {
		o.Take(ctx, evs("other", 1))
		o.Take(ctx, evs("slow", 2)) // queued behind the slow one's delivery, not waited for
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("another group's delivery waited on the slow group's")
	}
	close(release)
}
