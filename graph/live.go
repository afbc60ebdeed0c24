package graph

import (
	"context"
	"errors"

	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
)

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
		// This instance is not reading the table's stream right now.
		return nil, withRetryAfter(codedError(CodeUnavailable, err.Error()), unreachableRetryAfter)
	case err != nil:
		return nil, err
	}
	context.AfterFunc(ctx, sub.Close) // no goroutine per idle subscription
	return sub.Events(), nil
}
