package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/live"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

// startLeased runs a notifier instance that reads the stream through the
// shard leases, as serve does, until stop or the test's end; stop is a
// clean shutdown (its leases are released).
func (e *env) startLeased(owner string) (*live.LeasedTailer, func()) {
	e.t.Helper()
	s := store.New(dynamotest.Client(e.t), e.table, store.Options{})
	n := notify.New(notify.Options{Store: s, Bot: telegram.New(e.bot.URL(), "123:token", nil), Window: e.window,
		Links: notify.Links{BotUsername: "FractiBot", AppName: "app"}, Retries: 3, BaseBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	streams, err := store.NewStreamsClient(ctx, store.ClientConfig{Endpoint: dynamotest.Endpoint(e.t)})
	require.NoError(e.t, err)
	tl := &live.LeasedTailer{API: streams, StreamARN: s.StreamARN, Leases: s, Owner: owner, Timeout: 3 * time.Second,
		Poll: 50 * time.Millisecond, CheckpointLag: e.window + time.Second, Handle: func(ctx context.Context, recs []live.Record) error {
			n.HandleRecords(ctx, recs)
			return nil
		}}
	stop := e.run(tl.Run, n)
	return tl, stop
}

// TestNotifiersReadTheStreamThroughLeases: two notifier instances on the
// leases: one reads the shard, what was written before either started is
// still sent (a first lease reads from the trim horizon), each message goes
// once, and when the reader shuts down the other takes the shard over from
// its checkpoint, which lags behind the batch window: nothing the first had
// taken but not sent, nor anything written meanwhile, is lost.
func TestNotifiersReadTheStreamThroughLeases(t *testing.T) {
	e := newEnv(t, 0, time.Second)
	g := e.group()
	e.expense(e.stores[0], g, ann, "12.00", "before-any-reader;", ann, boris)
	a, stopA := e.startLeased("a")
	b, stopB := e.startLeased("b")
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "before-any-reader;") }, "the backlog is sent")
	e.eventually(func() bool { return len(a.Held())+len(b.Held()) > 0 }, "a reader holds the shard")
	require.Len(t, append(a.Held(), b.Held()...), 1, "one reader per shard")
	e.expense(e.stores[0], g, ann, "2.00", "while-one-reads;", ann)
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "while-one-reads;") }, "sent")

	holder, other, stop := a, b, stopA
	if len(b.Held()) > 0 {
		holder, other, stop = b, a, stopB
	}
	// The holder takes an expense into its batch window and stops before
	// sending it: the checkpoint did not pass it, so the other reads it again.
	e.expense(e.stores[0], g, ann, "4.00", "pending-at-shutdown;", ann)
	time.Sleep(300 * time.Millisecond)
	stop() // a clean shutdown releases the lease: the other takes it at once
	require.Empty(t, holder.Held())
	e.expense(e.stores[0], g, ann, "3.00", "after-the-reader-stopped;", ann)
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "after-the-reader-stopped;") }, "sent by the other")
	require.Len(t, other.Held(), 1)
	time.Sleep(time.Second) // a repeat would come by now
	all := strings.Join(e.to(chat), "\n")
	for _, name := range []string{"before-any-reader;", "while-one-reads;", "pending-at-shutdown;", "after-the-reader-stopped;"} {
		require.Equal(t, 1, strings.Count(all, name), name)
	}
}
