package live

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// leased is a LeasedTailer of the fake stream on the real lease items,
// stepped by the test; kill stops its readers without releasing anything,
// as a SIGKILL would.
type leased struct {
	*LeasedTailer
	c    *collector
	kill context.CancelFunc
	ctx  context.Context
}

func newLeased(t *testing.T, f *fakeStream, s *store.Store, clock *testclock.Clock, owner string) *leased {
	c := &collector{}
	tl := &LeasedTailer{API: f, StreamARN: func(context.Context) (string, error) { return "arn:fake/stream/1", nil },
		Leases: s, Owner: owner, Poll: time.Millisecond, Now: clock.Now, Timeout: 10 * time.Second,
		Handle: func(ctx context.Context, recs []Record) error { c.handle(ctx, recs); return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); tl.readers.Wait() })
	return &leased{LeasedTailer: tl, c: c, kill: cancel, ctx: ctx}
}

func (l *leased) step(t *testing.T) {
	t.Helper()
	require.NoError(t, l.Step(l.ctx))
}

// TestLeasesOneReaderPerShardBalancedAndTakenOver: two instances share two
// shards one each (the second takes one from the first, which held both);
// when one dies its shard is taken over after the timeout, from its
// checkpoint: nothing is skipped and nothing it had handled is read again.
func TestLeasesOneReaderPerShardBalancedAndTakenOver(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	f.addShardIn("arn:fake/stream/1", "s2", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a, b := newLeased(t, f, s, clock, "a"), newLeased(t, f, s, clock, "b")

	a.step(t)
	require.Equal(t, []string{"s1", "s2"}, a.Held(), "alone, a reads both")
	b.step(t)
	require.Len(t, b.Held(), 1, "b takes its share from a")
	a.step(t)
	require.Len(t, a.Held(), 1, "a lets the shard b took go")
	require.NotEqual(t, a.Held(), b.Held())

	shardOf := map[string]*leased{a.Held()[0]: a, b.Held()[0]: b}
	for n := 1; n <= 10; n++ {
		f.put([]string{"s1", "s2"}[n%2], n)
	}
	for shard, l := range shardOf {
		want := []int{}
		for n := 1; n <= 10; n++ {
			if []string{"s1", "s2"}[n%2] == shard {
				want = append(want, n)
			}
		}
		require.Eventually(t, func() bool { return slices.Equal(l.c.numbers(), want) }, 5*time.Second, time.Millisecond)
	}
	// Each batch is checkpointed after it is handled.
	require.Eventually(t, func() bool {
		leases, err := s.ListLeases(context.Background(), "1")
		require.NoError(t, err)
		return leases[0].Checkpoint != "" && leases[1].Checkpoint != ""
	}, 5*time.Second, time.Millisecond)

	// a dies holding its shard; records keep coming.
	dead := a.Held()[0]
	a.kill()
	a.readers.Wait()
	for n := 11; n <= 14; n++ {
		f.put(dead, n)
	}
	b.step(t)
	require.Len(t, b.Held(), 1, "a's lease has not expired yet")
	clock.Add(9 * time.Second)
	b.step(t)
	require.Len(t, b.Held(), 1, "nor after 9s")
	clock.Add(2 * time.Second)
	b.step(t)
	require.Equal(t, []string{"s1", "s2"}, b.Held(), "after LEASE_TIMEOUT b takes a's shard over")
	require.Eventually(t, func() bool {
		got := b.c.numbers()
		return len(got) >= 4 && slices.Equal(got[len(got)-4:], []int{11, 12, 13, 14})
	}, 5*time.Second, time.Millisecond, "b reads on from a's checkpoint")
	for _, n := range b.c.numbers() {
		require.False(t, slices.Contains(a.c.numbers(), n), "record %d was handled and checkpointed by a, and read again", n)
	}
}

// TestLeasesReadASplitsChildrenAfterItsParent: a child's lease is taken
// only once its parent's lease is finished.
func TestLeasesReadASplitsChildrenAfterItsParent(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "parent", "")
	f.addShardIn("arn:fake/stream/1", "child", "parent")
	f.put("parent", 1)
	f.put("child", 3)
	f.put("parent", 2)
	f.close("parent")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a := newLeased(t, f, s, clock, "a")
	a.step(t)
	require.Equal(t, []string{"parent"}, a.Held(), "the child waits for its parent")
	require.Eventually(t, func() bool {
		leases, err := s.ListLeases(context.Background(), "1")
		require.NoError(t, err)
		return leases[1].Shard == "parent" && leases[1].Finished
	}, 5*time.Second, time.Millisecond, "the parent's lease is finished at its end")
	a.step(t)
	require.Equal(t, []string{"child"}, a.Held())
	require.Eventually(t, func() bool { return slices.Equal(a.c.numbers(), []int{1, 2, 3}) }, 5*time.Second, time.Millisecond)

	// The parent passes the stream's 24 hours: its lease goes too.
	f.mu.Lock()
	f.shards = f.shards[1:]
	f.mu.Unlock()
	a.step(t)
	leases, err := s.ListLeases(context.Background(), "1")
	require.NoError(t, err)
	require.Len(t, leases, 1)
	require.Equal(t, "child", leases[0].Shard)
}

// TestLeasesBalanceAsInstancesComeAndGo: four shards settle at 2 and 2 on
// two instances and at 2, 1, 1 on three, every shard read by exactly one;
// an instance that shuts down cleanly releases its leases for the others
// to take at once.
func TestLeasesBalanceAsInstancesComeAndGo(t *testing.T) {
	f := newFakeStream()
	for _, id := range []string{"s1", "s2", "s3", "s4"} {
		f.addShardIn("arn:fake/stream/1", id, "")
	}
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a, b, c := newLeased(t, f, s, clock, "a"), newLeased(t, f, s, clock, "b"), newLeased(t, f, s, clock, "c")
	rounds := func(ls ...*leased) {
		for range 4 {
			for _, l := range ls {
				l.step(t)
			}
		}
	}
	counts := func(ls ...*leased) []int {
		var n []int
		seen := map[string]bool{}
		for _, l := range ls {
			for _, id := range l.Held() {
				require.False(t, seen[id], "%s read twice", id)
				seen[id] = true
			}
			n = append(n, len(l.Held()))
		}
		require.Len(t, seen, 4, "every shard is read")
		return n
	}
	rounds(a)
	require.Equal(t, []int{4}, counts(a))
	rounds(a, b)
	require.Equal(t, []int{2, 2}, counts(a, b))
	rounds(a, b, c)
	got := counts(a, b, c)
	slices.Sort(got)
	require.Equal(t, []int{1, 1, 2}, got)

	c.kill()
	c.readers.Wait()
	c.releaseAll()
	rounds(a, b)
	require.Equal(t, []int{2, 2}, counts(a, b), "c's leases are taken at once, without waiting for LEASE_TIMEOUT")
}
