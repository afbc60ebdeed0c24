package loaders

import (
	"context"

	"github.com/fracti/api/store"
)

// Comment is the comment a reference names, or nil: by key when the ref
// carries it, else by id (an activity event's subject, a node). The events
// of a page of activity asking for their comments cost one wave of lookups.
func Comment(ctx context.Context, ref store.CommentRef) (*store.Comment, error) {
	return from(ctx).comments.Load(ctx, ref)()
}
