package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestLeasesOneSetPerConsumer: a publisher and a notifier (in two
// processes) each read every shard through leases of their own, with their
// own checkpoints: neither takes the other's, and both get every record.
func TestLeasesOneSetPerConsumer(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	f.addShardIn("arn:fake/stream/1", "s2", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	pub, not := newLeased(t, f, s, clock, "serve"), newLeased(t, f, s, clock, "notify")
	pub.Consumer, not.Consumer = ConsumerPublisher, ConsumerNotifier
	for range 3 {
		pub.step(t)
		not.step(t)
		clock.Add(time.Second)
	}
	require.Equal(t, []string{"s1", "s2"}, pub.Held(), "the publisher reads every shard")
	require.Equal(t, []string{"s1", "s2"}, not.Held(), "and so does the notifier")
	f.put("s1", 1)
	f.put("s2", 2)
	for _, l := range []*leased{pub, not} {
		require.Eventually(t, func() bool { return len(l.c.numbers()) == 2 }, 5*time.Second, time.Millisecond)
	}
	for _, consumer := range []string{ConsumerPublisher, ConsumerNotifier} {
		leases, err := s.ListLeases(context.Background(), store.LeaseSet("1", consumer))
		require.NoError(t, err)
		require.Len(t, leases, 2, consumer)
	}
}

// TestLeasesNotifierGoesOnWhileTheBrokerIsDown: the publisher cannot
// publish (its batches fail and are not checkpointed), yet the notifier's
// reader, on its own leases, gets every record once and checkpoints.
func TestLeasesNotifierGoesOnWhileTheBrokerIsDown(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:fake/stream/1", "s1", "")
	s := dynamotest.Store(t)
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	pub, not := newLeased(t, f, s, clock, "a"), newLeased(t, f, s, clock, "a")
	pub.Consumer, not.Consumer = ConsumerPublisher, ConsumerNotifier
	pub.Handle = func(context.Context, []Record) error { return errors.New("publish on the broker: connection refused") }
	pub.step(t)
	not.step(t)
	for n := 1; n <= 3; n++ {
		f.put("s1", n)
	}
	require.Eventually(t, func() bool { return len(not.c.numbers()) == 3 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int{1, 2, 3}, not.c.numbers(), "each once")
	require.Eventually(t, func() bool {
		leases, err := s.ListLeases(context.Background(), store.LeaseSet("1", ConsumerNotifier))
		require.NoError(t, err)
		return leases[0].Checkpoint != ""
	}, 5*time.Second, time.Millisecond, "the notifier checkpoints")
	leases, err := s.ListLeases(context.Background(), store.LeaseSet("1", ConsumerPublisher))
	require.NoError(t, err)
	require.Empty(t, leases[0].Checkpoint, "the publisher does not: its batches are read again")
}
