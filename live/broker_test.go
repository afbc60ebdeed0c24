package live

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// fakeBroker is a Broker in memory: what is published is kept, what the
// test sends on recv is received, and err says it is down.
type fakeBroker struct {
	mu        sync.Mutex
	err       error
	published []store.Event
	recv      chan []store.Event
}

func (b *fakeBroker) Publish(_ context.Context, events []store.Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	b.published = append(b.published, events...)
	return nil
}

func (b *fakeBroker) Receive(ctx context.Context, deliver func(context.Context, []store.Event)) {
	for {
		select {
		case <-ctx.Done():
			return
		case evs := <-b.recv:
			deliver(ctx, evs)
		}
	}
}

func (b *fakeBroker) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func (b *fakeBroker) setErr(err error) {
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
}

func (b *fakeBroker) seqs() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return seqsOf(b.published)
}

func (b *fakeBroker) WatchAll()           {}
func (b *fakeBroker) WatchGroup(string)   {}
func (b *fakeBroker) UnwatchGroup(string) {}
func (b *fakeBroker) WatchUser(string)    {}
func (b *fakeBroker) UnwatchUser(string)  {}

// fakeHub keeps what it is given.
type fakeHub struct {
	mu     sync.Mutex
	events []store.Event
}

func (h *fakeHub) Publish(_ context.Context, events []store.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, events...)
}

func (h *fakeHub) groups() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ids []string
	for _, ev := range h.events {
		ids = append(ids, ev.GroupID)
	}
	return ids
}

func (h *fakeHub) seqs() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return seqsOf(h.events)
}

func runDelivery(t *testing.T, d *Delivery) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestDeliveryAtCommitOnceWhicheverWayItComes: an event committed here is
// published at once and delivered in its group's order: after the one
// before it, which comes from another writer through the broker; repeats
// (the lease holder publishing it from the stream, out of order twice) are
// dropped.
func TestDeliveryAtCommitOnceWhicheverWayItComes(t *testing.T) {
	hub, b := &fakeHub{}, &fakeBroker{recv: make(chan []store.Event)}
	d := &Delivery{Hub: hub, Broker: b, Order: &Order{Wait: time.Hour}}
	runDelivery(t, d)
	b.recv <- evs("g", 1)
	require.Eventually(t, func() bool { return len(hub.seqs()) == 1 }, 5*time.Second, time.Millisecond)
	d.Committed(store.Event{GroupID: "g", Seq: 3})
	require.Eventually(t, func() bool { return len(b.seqs()) == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{3}, b.seqs(), "published at commit")
	require.Equal(t, []int64{1}, hub.seqs(), "3 waits for 2")
	b.recv <- evs("g", 2, 3)
	b.recv <- evs("g", 3, 1)
	b.recv <- evs("h", 2)
	require.Eventually(t, func() bool { return len(hub.seqs()) == 4 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{1, 2, 3, 2}, hub.seqs())
	require.Equal(t, []string{"g", "g", "g", "h"}, hub.groups())
}

// TestDeliveryFillsAGapFromTheTable: an event beyond the next one that
// nothing else brings the missing ones of is delivered after them, read
// from the activity log after the group's mark.
func TestDeliveryFillsAGapFromTheTable(t *testing.T) {
	hub := &fakeHub{}
	var mu sync.Mutex
	var asked []int64
	d := &Delivery{Hub: hub, Order: &Order{Wait: 20 * time.Millisecond,
		Changes: func(_ context.Context, groupID string, after int64) ([]store.Event, error) {
			mu.Lock()
			asked = append(asked, after)
			mu.Unlock()
			var out []store.Event
			for seq := after + 1; seq <= 5; seq++ {
				out = append(out, store.Event{GroupID: groupID, Seq: seq})
			}
			return out, nil
		}}}
	runDelivery(t, d)
	d.Deliver(context.Background(), evs("g", 1))
	d.Deliver(context.Background(), evs("g", 4))
	require.Eventually(t, func() bool { return len(hub.seqs()) == 5 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{1, 2, 3, 4, 5}, hub.seqs(), "2 and 3 from the table, then 4, and 5 that the table had")
	d.Deliver(context.Background(), evs("g", 5, 3))
	d.Deliver(context.Background(), evs("g", 6))
	require.Eventually(t, func() bool { return len(hub.seqs()) == 6 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{1, 2, 3, 4, 5, 6}, hub.seqs())
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int64{1}, asked, "read after the mark, once")
}

// putEvent writes group g's event seq into the fake stream as the table
// would.
func (f *fakeStream) putEvent(shardID, g string, seq int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	sh := f.shard(shardID)
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	sh.records = append(sh.records, types.Record{Dynamodb: &types.StreamRecord{
		SequenceNumber: aws.String(fmt.Sprintf("%020d", f.seq)),
		NewImage: map[string]types.AttributeValue{
			"PK": str("GROUP#" + g), "SK": str(fmt.Sprintf("EVENT#%012d", seq)), "groupId": str(g),
			"seq": &types.AttributeValueMemberN{Value: strconv.FormatInt(seq, 10)}, "type": str("expense_created"),
			"actorId": str("u1"), "at": str(time.Now().UTC().Format(time.RFC3339Nano)), "subjectKind": str("expense"),
			"subjectId": str("e1"), "hash": str("h"), "formatVersion": &types.AttributeValueMemberN{Value: "1"},
		},
	}})
}

// TestDeliveryFallsBackToTheStreamWhileTheBrokerIsDown: a broker failing
// for DownAfter starts the fallback reader (counted), which reads each
// shard from behind its lease's checkpoint: what the holder published
// before (1) is not delivered again, what it could not publish before the outage
// (2) and what is written during it (3) arrive, in order; the broker back
// for Grace stops it.
func TestDeliveryFallsBackToTheStreamWhileTheBrokerIsDown(t *testing.T) {
	f := newFakeStream()
	f.addShard("s1", "")
	hub, b := &fakeHub{}, &fakeBroker{recv: make(chan []store.Event)}
	var mu sync.Mutex
	var turns []bool
	f.putEvent("s1", "g", 1)
	b.recv = make(chan []store.Event, 1)
	b.recv <- evs("g", 1) // published by the shard's holder, which checkpointed it
	checkpoint := fmt.Sprintf("%020d", 1)
	d := &Delivery{Hub: hub, Broker: b, DownAfter: 50 * time.Millisecond, Grace: 300 * time.Millisecond,
		Fallback: func() *Tailer {
			return &Tailer{API: f, StreamARN: func(context.Context) (string, error) { return "arn:fake", nil },
				Poll: time.Millisecond, FromStart: true,
				Start: func(context.Context, string, string) string { return checkpoint }}
		},
		OnFallback: func(on bool) { mu.Lock(); turns = append(turns, on); mu.Unlock() }}
	runDelivery(t, d)
	require.Eventually(t, func() bool { return len(hub.seqs()) == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, d.Status())
	f.putEvent("s1", "g", 2) // the holder could not publish it: the broker went down
	b.setErr(errors.New("connection refused"))
	require.Eventually(t, func() bool { return d.Falling() && d.Status() == nil }, 5*time.Second, time.Millisecond,
		"the instance reads the stream itself and serves on")
	f.putEvent("s1", "g", 3)
	require.Eventually(t, func() bool { return len(hub.seqs()) == 3 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int64{1, 2, 3}, hub.seqs(), "from behind the checkpoint, in order, once")
	b.setErr(nil)
	require.Eventually(t, func() bool { return !d.Falling() }, 5*time.Second, time.Millisecond, "back to the broker")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []bool{true, false}, turns)
}
