package loaders

import (
	"context"

	"github.com/fracti/api/store"
)

// Series is the recurring expense at key, or nil: an occurrence's
// recurrence, an event's subject. A page of occurrences asking for their
// recurring expense costs one BatchGetItem.
func Series(ctx context.Context, key store.SeriesKey) (*store.Series, error) {
	return from(ctx).series.Load(ctx, key)()
}
