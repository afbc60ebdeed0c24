package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// failingExec renders nothing: its DispatchOperation panics (outside any
// resolver, where the executor does not recover) or answers no response.
type failingExec struct {
	graphql.GraphExecutor
	panics bool
}

func (e failingExec) DispatchOperation(ctx context.Context, _ *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	if e.panics {
		panic("boom")
	}
	return func(context.Context) *graphql.Response { return nil }, ctx
}

// An event whose payload cannot be rendered is not skipped in silence: each
// subscriber with its payload key gets an `error` that ends the
// subscription (to subscribe again and catch up), and nothing after it.
func TestLiveWSRenderFailureEndsTheSubscriptionWithAnError(t *testing.T) {
	for _, panics := range []bool{true, false} {
		l := &liveTransports{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		c := &wsConn{t: wsTransport{l: l, buffer: 10}, exec: failingExec{panics: panics}, ctx: context.Background(), subs: map[string]*wsSub{}}
		c.writing = true // no writer: the test reads what is queued
		shared := &live.Shared{}
		events := []store.Event{{GroupID: "g", Seq: 1}, {GroupID: "g", Seq: 2}}
		var subs []*wsSub
		for _, id := range []string{"a", "b"} {
			ctx, cancel := context.WithCancel(context.Background())
			s := &wsSub{c: c, id: id, key: "k", ctx: ctx, cancel: cancel, op: &graphql.OperationContext{}}
			c.subs[id] = s
			subs = append(subs, s)
			require.True(t, s.Deliver(events, shared))
		}
		c.mu.Lock()
		out := c.out
		c.out = nil
		c.mu.Unlock()
		for _, o := range out {
			require.NoError(t, c.writeOut(o))
		}
		c.mu.Lock()
		var got []string
		for _, o := range c.out {
			var m struct {
				ID      string
				Type    string
				Payload []struct{ Extensions map[string]any }
			}
			require.NoError(t, json.Unmarshal(o.msg, &m), "%s", o.msg)
			require.Equal(t, "INTERNAL_SERVER_ERROR", m.Payload[0].Extensions["code"])
			got = append(got, m.ID+" "+m.Type)
		}
		c.mu.Unlock()
		require.Equal(t, []string{"a error", "b error"}, got, "panics: %v", panics)
		require.Empty(t, c.subs)
		for _, s := range subs {
			require.True(t, s.done && s.stopped)
		}
	}
}

// A subscription the hub drops with its connection sends no `complete`
// (the close follows); one the hub ends does.
func TestLiveWSDroppedSubscriptionSendsNoComplete(t *testing.T) {
	var _ live.DroppedSink = (*wsSub)(nil)
	c := &wsConn{t: wsTransport{l: &liveTransports{}, buffer: 10}, ctx: context.Background(), subs: map[string]*wsSub{}}
	c.writing = true // no writer: the test reads what is queued
	for _, id := range []string{"dropped", "ended"} {
		_, cancel := context.WithCancel(context.Background())
		c.subs[id] = &wsSub{c: c, id: id, cancel: cancel}
	}
	c.subs["dropped"].Dropped()
	c.subs["ended"].Ended()
	var got []string
	for _, o := range c.out {
		got = append(got, string(o.msg))
	}
	require.Equal(t, []string{`{"id":"ended","type":"complete"}`}, got)
	require.Empty(t, c.subs)
}
