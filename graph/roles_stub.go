package graph

import (
	"context"

	"github.com/fracti/api/store"
)

// authorize is the group if the viewer is an active member allowed to do act in it (stub: any active member).
func authorize(ctx context.Context, groupID string, act store.Action) (*store.Group, error) {
	g, err := visibleGroup(ctx, groupID)
	if err != nil || g == nil {
		return nil, orNotFound(err, "group")
	}
	return g, nil
}
