package graph

import (
	"context"

	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// wroteGroup returns what answers a mutation that wrote to a group and
// returns it: the group as written, after dropping what the request's
// loaders had cached of it.
func wroteGroup(ctx context.Context) func(store.Group, error) (*store.Group, error) {
	return func(g store.Group, err error) (*store.Group, error) {
		if err != nil {
			return nil, err
		}
		loaders.Wrote(ctx, g.ID)
		loaders.PrimeGroup(ctx, &g)
		return &g, nil
	}
}
