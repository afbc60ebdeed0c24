package graph

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/live"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// subscribe opens a subscription for the viewer and ends it when the
// subscriber goes away. On a context ForEvent made, it opens nothing: the
// operation is the result for that one event, which the hub has already
// checked the subscribers may see.
func (r *Resolver) subscribe(ctx context.Context, open func(*live.Hub, string) (*live.Subscription, error)) (<-chan *store.Event, error) {
	if e := eventFrom(ctx); e != nil {
		one := make(chan *store.Event, 1)
		one <- e.event
		close(one)
		return one, nil
	}
	if r.Live == nil {
		return nil, codedError(CodeUnavailable, "live updates are not enabled on this server")
	}
	sub, err := open(r.Live, viewerID(ctx))
	switch {
	case errors.Is(err, live.ErrNotMember):
		return nil, notFound("group")
	case errors.Is(err, live.ErrTooManySubscriptions):
		return nil, codedError(CodeRateLimited, err.Error()+": complete one before starting another")
	case errors.Is(err, live.ErrUnavailable):
		// This instance is not reading the table's stream right now.
		return nil, withRetryAfter(codedError(CodeUnavailable, err.Error()), unreachableRetryAfter)
	case err != nil:
		return nil, err
	}
	if sub.HasSink() {
		// Its events go to the sink, rendered once per payload key
		// (ForEvent), and the sink closes it; the stream gqlgen sees ends
		// at once, and nothing keeps this operation's state.
		return closedEvents, nil
	}
	context.AfterFunc(ctx, sub.Close) // no goroutine per idle subscription
	return sub.Events(), nil
}

// closedEvents is the stream of a subscription that delivers to a sink.
var closedEvents = func() chan *store.Event {
	c := make(chan *store.Event)
	close(c)
	return c
}()

// liveEvent is the one event an operation dispatched with ForEvent renders.
type liveEvent struct {
	event  *store.Event
	shared *live.Shared
}

type liveEventKey struct{}

// ForEvent makes a subscription operation dispatched on ctx render one
// event: its result is that event's, read with the loaders every subscriber
// of the event shares (made once per event in shared), without opening a
// subscription or counting against the viewer's quota.
func ForEvent(ctx context.Context, ev *store.Event, shared *live.Shared) context.Context {
	return context.WithValue(ctx, liveEventKey{}, &liveEvent{event: ev, shared: shared})
}

// EventOf is the event an operation dispatched with ForEvent renders, nil
// for any other: a log line of its render names the event, not a request.
func EventOf(ctx context.Context) *store.Event {
	if e := eventFrom(ctx); e != nil {
		return e.event
	}
	return nil
}

func eventFrom(ctx context.Context) *liveEvent {
	e, _ := ctx.Value(liveEventKey{}).(*liveEvent)
	return e
}

// shareEventLoaders makes a subscription stream's result for ev read with
// the loaders every subscriber of ev on this instance shares (live.Hub's
// SharedFor); the event's resolvers call it before they read anything.
func (r *Resolver) shareEventLoaders(ctx context.Context, ev *store.Event) {
	slot := loaders.SlotFrom(ctx)
	if slot == nil || r.Live == nil {
		return
	}
	if shared := r.Live.SharedFor(ev); shared != nil {
		slot.Fill(func() *loaders.Loaders { return shared.Once(ev, func() any { return slot.New() }).(*loaders.Loaders) })
	}
}

// viewerDependent are the fields a subscription may reach whose value
// depends on who asks, beyond membership of the event's group (which every
// subscriber of the event has): an audit of the resolvers that read the
// viewer (viewerID, viewer, currentUser). Query.me and User are not
// reachable from a GroupEvent; mutations are not either.
var viewerDependent = map[string]bool{
	"Member.notificationSettings": true, // the viewer's own settings only
}

// PayloadKey is what subscribers whose results for an event are the same
// bytes share: the operation's normalized document (whitespace, comments
// and field order as written do not matter... but only the printed form
// does), its name and variables, and the viewer when the selection reaches
// a field whose value depends on the viewer.
func PayloadKey(op *graphql.OperationContext, viewer string) string {
	var b strings.Builder
	formatter.NewFormatter(&b, formatter.WithCompacted()).FormatQueryDocument(op.Doc)
	b.WriteString("\x00")
	b.WriteString(op.OperationName)
	b.WriteString("\x00")
	vars, _ := json.Marshal(op.Variables) // maps marshal in key order
	b.Write(vars)
	if reachesViewer(op.Operation.SelectionSet, map[string]bool{}) {
		b.WriteString("\x00")
		b.WriteString(viewer)
	}
	return b.String()
}

// reachesViewer reports whether the selection reaches a viewerDependent
// field, through fragments too.
func reachesViewer(set ast.SelectionSet, seen map[string]bool) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.ObjectDefinition != nil && viewerDependent[s.ObjectDefinition.Name+"."+s.Name] {
				return true
			}
			if reachesViewer(s.SelectionSet, seen) {
				return true
			}
		case *ast.InlineFragment:
			if reachesViewer(s.SelectionSet, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && !seen[s.Name] {
				seen[s.Name] = true
				if reachesViewer(s.Definition.SelectionSet, seen) {
					return true
				}
			}
		}
	}
	return false
}
