package notify_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/live"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

// router hands each notable event read from the stream to the notifier
// instances its route names, as leased readers of different shards (or a
// shard that moved between instances) would.
type router struct {
	mu    sync.Mutex
	route func(ev store.Event) []int
}

func (r *router) set(route func(ev store.Event) []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.route = route
}

// routed runs count notifier instances, each with a store of its own, fed
// by one tailer through a router (all of them: every instance gets every
// event, until the test sets another route).
func (e *env) routed(count int, opts ...func(*notify.Options)) *router {
	e.t.Helper()
	r := &router{route: func(store.Event) []int {
		all := make([]int, count)
		for i := range all {
			all[i] = i
		}
		return all
	}}
	var nots []*notify.Notifier
	for range count {
		s := store.New(dynamotest.Client(e.t), e.table, store.Options{})
		e.stores = append(e.stores, s)
		o := notify.Options{
			Store: s, Bot: telegram.New(e.bot.URL(), "123:token", nil), Window: e.window,
			Retries: 3, BaseBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		}
		for _, f := range opts {
			f(&o)
		}
		n := notify.New(o)
		nots = append(nots, n)
		e.nots = append(e.nots, n)
	}
	streams, err := store.NewStreamsClient(ctx, store.ClientConfig{Endpoint: dynamotest.Endpoint(e.t)})
	require.NoError(e.t, err)
	handle := func(ctx context.Context, records []live.Record) {
		for _, rec := range records {
			ev, ok, err := store.EventFromImage(rec.NewImage, rec.OldImage)
			if err != nil || !ok {
				continue
			}
			r.mu.Lock()
			to := r.route(ev)
			r.mu.Unlock()
			for _, i := range to {
				nots[i].HandleRecords(ctx, []live.Record{rec})
			}
		}
	}
	tl := &live.Tailer{API: streams, StreamARN: e.stores[0].StreamARN, Handle: handle, FromStart: true,
		Poll: 50 * time.Millisecond, Refresh: time.Second}
	e.run(tl.Run, waiters(nots))
	return r
}

// waiters waits for every notifier's batches (env.run waits for one).
type waiters []*notify.Notifier

// Wait waits for each in turn.
func (w waiters) Wait() {
	for _, n := range w {
		n.Wait()
	}
}

// bySeq routes each event to one instance of count, by its sequence number:
// a group's consecutive events go to different instances.
func bySeq(count int) func(ev store.Event) []int {
	return func(ev store.Event) []int { return []int{int(ev.Seq % int64(count))} }
}

// The proof: three notifier instances on one table, each given a
// different one of three expenses recorded together, send one group
// message naming all three, window after window; and when every instance
// gets every event, still one.
func TestOneMessagePerWindowAcrossThreeInstances(t *testing.T) {
	e := newEnv(t, 0, 2*time.Second)
	r := e.routed(3)
	g := e.group()
	r.set(bySeq(3))
	for round := range 4 {
		if round == 3 {
			r.set(func(store.Event) []int { return []int{0, 1, 2} })
		}
		before := len(e.to(chat))
		var names []string
		for i := range 3 {
			name := fmt.Sprintf("round-%d-expense-%d;", round, i)
			names = append(names, name)
			e.expense(e.stores[i], g, ann, "3.00", name, ann)
		}
		e.eventually(func() bool {
			all := strings.Join(e.to(chat), "\n")
			return strings.Contains(all, names[0]) && strings.Contains(all, names[1]) && strings.Contains(all, names[2])
		}, "the round's expenses told")
		time.Sleep(e.window + 500*time.Millisecond) // a second message would come within a window
		texts := e.to(chat)[before:]
		require.Len(t, texts, 1, "round %d: one message for the window: %q", round, texts)
		for _, name := range names {
			require.Equal(t, 1, strings.Count(texts[0], name), "round %d: %s named once", round, name)
		}
		w, found, err := e.stores[0].Window(ctx, g.ID, "chat")
		require.NoError(t, err)
		require.True(t, found)
		require.True(t, w.Closed, "the window is closed once sent")
	}
	require.Empty(t, e.bot.LimitViolations())
	e.eventually(func() bool {
		for _, n := range e.nots {
			if _, busy := n.Unfinished(); busy {
				return false
			}
		}
		return true
	}, "every instance sees its events sent")
}

// An instance that claimed a group's window and died before sending it:
// the instances that read the window's other events take it over when its
// claim ends, and send one message naming all of them, the dead owner's
// event included (read from the table: nobody else was given it).
func TestAWindowWhoseOwnerDiedIsSentByAnother(t *testing.T) {
	e := newEnv(t, 0, 300*time.Millisecond)
	const grace = time.Second
	r := e.routed(3, func(o *notify.Options) { o.ClaimGrace = grace })
	g := e.group()
	dead := make(chan int64, 1)
	first := true
	r.set(func(ev store.Event) []int { // called under the router's lock
		if first { // the first goes to an instance that then dies
			first = false
			dead <- ev.Seq
			return nil
		}
		return bySeq(3)(ev)
	})
	e.expense(e.stores[0], g, ann, "1.00", "seen-by-the-dead-owner;", ann)
	seq := <-dead
	w, err := e.stores[0].JoinWindow(ctx, g.ID, "chat", "dead-instance", []int64{seq}, time.Now(), e.window+grace)
	require.NoError(t, err)
	require.Equal(t, "dead-instance", w.Owner)
	e.expense(e.stores[1], g, ann, "2.00", "seen-by-one;", ann)
	e.expense(e.stores[2], g, ann, "3.00", "seen-by-another;", ann)
	e.eventually(func() bool { return len(e.to(chat)) > 0 }, "sent by a survivor")
	time.Sleep(e.window + grace) // a second message would come by now
	texts := e.to(chat)
	require.Len(t, texts, 1, "%q", texts)
	for _, name := range []string{"seen-by-the-dead-owner;", "seen-by-one;", "seen-by-another;"} {
		require.Equal(t, 1, strings.Count(texts[0], name), name)
	}
}
