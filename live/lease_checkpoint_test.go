package live

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// busyConsumer is a consumer's low-water mark set by the test.
type busyConsumer struct {
	mu    sync.Mutex
	since time.Time
	busy  bool
}

func (b *busyConsumer) set(since time.Time, busy bool) {
	b.mu.Lock()
	b.since, b.busy = since, busy
	b.mu.Unlock()
}

func (b *busyConsumer) unfinished() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.since, b.busy
}

func checkpointOf(t *testing.T, s *store.Store, shard string) store.Lease {
	leases, err := s.ListLeases(context.Background(), "1")
	require.NoError(t, err)
	for _, l := range leases {
		if l.Shard == shard {
			return l
		}
	}
	t.Fatalf("no lease of %s", shard)
	return store.Lease{}
}

// TestLeasesCheckpointOnlyWhatTheConsumerFinished: a batch the consumer
// took but has not finished (the notifier retrying a send for hours) holds
// the checkpoint back however long it takes; once finished, the checkpoint
// passes it.
func TestLeasesCheckpointOnlyWhatTheConsumerFinished(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a := newLeased(t, f, s, clock, "a")
	busy := &busyConsumer{}
	a.CheckpointLag, a.Unfinished = time.Second, busy.unfinished
	busy.set(clock.Now(), true) // record 1 is taken now and not sent
	a.step(t)
	f.put("s1", 1)
	require.Eventually(t, func() bool { return len(a.c.numbers()) == 1 }, 5*time.Second, time.Millisecond)
	clock.Add(time.Hour)
	f.put("s1", 2)
	require.Eventually(t, func() bool { return len(a.c.numbers()) == 2 }, 5*time.Second, time.Millisecond)
	clock.Add(time.Hour)
	time.Sleep(50 * time.Millisecond) // reads go on: nothing is due
	require.Empty(t, checkpointOf(t, s, "s1").Checkpoint, "record 1 is not sent: no checkpoint passes it")
	busy.set(time.Time{}, false)
	require.Eventually(t, func() bool { return checkpointOf(t, s, "s1").Checkpoint == fmt.Sprintf("%020d", 2) },
		5*time.Second, time.Millisecond, "all sent: the checkpoint passes both (after an empty read)")
}

// TestLeasesFinishAShardAsSoonAsItsLastBatchSettled: at a shard's end the
// lease is finished once its last batch settled (here its lag passed on the
// clock), without sleeping the lag again, so its children are read at once.
func TestLeasesFinishAShardAsSoonAsItsLastBatchSettled(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "parent", "")
	f.put("parent", 1)
	f.close("parent")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a := newLeased(t, f, s, clock, "a")
	a.CheckpointLag = time.Hour
	a.step(t)
	require.Eventually(t, func() bool { return len(a.c.numbers()) == 1 }, 5*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	require.False(t, checkpointOf(t, s, "parent").Finished, "its batch has not settled")
	clock.Add(2 * time.Hour)
	require.Eventually(t, func() bool { return checkpointOf(t, s, "parent").Finished }, 5*time.Second, time.Millisecond)
}

// TestLeasesBacklogIsWhatCameBeforeTheLease: a shard never checkpointed,
// taken over by an instance that started long after its lease was
// created, counts as backlog only what came before the lease, not what
// came before the new reader's start.
func TestLeasesBacklogIsWhatCameBeforeTheLease(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC))
	a := newLeased(t, f, s, clock, "a")
	a.step(t)
	a.kill() // dies before reading anything
	a.readers.Wait()
	clock.Add(24 * time.Hour)
	b := newLeased(t, f, s, clock, "b")
	b.step(t)
	clock.Add(b.timeout())
	b.step(t)
	require.Equal(t, []string{"s1"}, b.Held())
	f.put("s1", 1)
	require.Eventually(t, func() bool { return len(b.c.numbers()) == 1 }, 5*time.Second, time.Millisecond)
	lease := checkpointOf(t, s, "s1")
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	require.Equal(t, lease.Created.Add(-BacklogMargin), b.c.backlog[0], "from the lease's creation, not b's start")
}

// TestLeasesForgetShardsGoneFromTheStream: what an instance remembers of
// another's lease goes with the shard.
func TestLeasesForgetShardsGoneFromTheStream(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	f.addShardIn("arn:fake/stream/1", "s2", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	a, b := newLeased(t, f, s, clock, "a"), newLeased(t, f, s, clock, "b")
	a.step(t)
	b.step(t)
	a.step(t)
	require.Len(t, a.seen, 1, "a watches b's lease")
	gone := b.Held()[0]
	b.kill()
	b.readers.Wait()
	f.mu.Lock()
	for i, sh := range f.shards {
		if sh.id == gone {
			f.shards = append(f.shards[:i], f.shards[i+1:]...)
			break
		}
	}
	f.mu.Unlock()
	a.step(t)
	require.Empty(t, a.seen, "forgotten with its shard")
}
