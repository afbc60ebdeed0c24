package graph

import (
	"context"
	"errors"

	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
)

// CodeUnavailable is the code of a subscription refused because this
// instance cannot read live updates (the table's stream) right now.
const CodeUnavailable = "UNAVAILABLE"

// subscribe opens a subscription for the viewer and ends it when the
// subscriber goes away.
func (r *Resolver) subscribe(ctx context.Context, open func(*live.Hub, string) (*live.Subscription, error)) (<-chan *store.Event, error) {
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
		return nil, codedError(CodeUnavailable, err.Error())
	case err != nil:
		return nil, err
	}
	context.AfterFunc(ctx, sub.Close) // no goroutine per idle subscription
	return sub.Events(), nil
}
