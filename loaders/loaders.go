// Package loaders batches and caches, per request, the lookups that GraphQL
// resolvers make one object at a time: groups, members, expenses,
// settlements and balances. Fifty expenses asking for their payers cost one
// BatchGetItem, not fifty GetItems.
//
// Resolvers use the typed getters (Group, Member, Expense, …) and, after a
// write, Wrote: the loaders own their cache, including what a write makes
// stale.
package loaders

import (
	"context"
	"net/http"
	"time"

	"github.com/fracti/api/store"
	"github.com/graph-gophers/dataloader/v7"
)

// DefaultWait is how long a loader collects keys before it fetches. GraphQL
// resolves sibling fields in goroutines that all start within microseconds,
// so a short window catches a whole list's keys, and a lone lookup waits
// only this long (a DynamoDB call takes several times longer).
const DefaultWait = 2 * time.Millisecond

// Loaders are one request's dataloaders and their caches.
type Loaders struct {
	groups      loader[string, store.Group]
	members     loader[store.MemberKey, store.Member]
	expenses    loader[store.ExpenseRef, store.Expense]
	settlements loader[store.SettlementRef, store.Settlement]
	balances    loader[string, store.GroupBalances]
}

// loader is a dataloader with the cache it fills, kept at hand so that a
// write can drop entries by what they belong to.
type loader[K comparable, V any] struct {
	*dataloader.Loader[K, *V]
	cache *cache[K, *V]
}

// New returns fresh loaders over s that wait wait before each batch.
func New(s *store.Store, wait time.Duration) *Loaders {
	return &Loaders{
		groups:      newLoader(wait, s.GetGroups),      // BatchGetItem
		members:     newLoader(wait, s.GetMembers),     // BatchGetItem
		expenses:    newLoader(wait, s.GetExpenses),    // BatchGetItem by key, GSI2 by id
		settlements: newLoader(wait, s.GetSettlements), // like expenses
		balances:    newLoader(wait, s.GetBalances),    // ledger, then books
	}
}

// newLoader turns a store batch read (results aligned with keys, nil when
// missing) into a dataloader. Batches are capped at BatchGetItem's 100 keys.
func newLoader[K comparable, V any](wait time.Duration, fetch func(context.Context, []K) ([]*V, error)) loader[K, V] {
	batch := func(ctx context.Context, keys []K) []*dataloader.Result[*V] {
		values, err := fetch(ctx, keys)
		results := make([]*dataloader.Result[*V], len(keys))
		for i := range keys {
			if err != nil {
				results[i] = &dataloader.Result[*V]{Error: err}
			} else {
				results[i] = &dataloader.Result[*V]{Data: values[i]}
			}
		}
		return results
	}
	c := newCache[K, *V]()
	return loader[K, V]{
		Loader: dataloader.NewBatchedLoader(batch,
			dataloader.WithWait[K, *V](wait),
			dataloader.WithBatchCapacity[K, *V](store.MaxBatchGet),
			dataloader.WithCache[K, *V](c),
		),
		cache: c,
	}
}

// prime caches v under key, replacing whatever was cached (dataloader's own
// Prime keeps an existing entry).
func (l loader[K, V]) prime(ctx context.Context, key K, v *V) {
	l.Clear(ctx, key).Prime(ctx, key, v)
}

type ctxKey struct{}

// Middleware gives every request its own loaders, so that nothing cached
// outlives the request or leaks between users.
func Middleware(s *store.Store, wait time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), New(s, wait))))
		})
	}
}

// With puts loaders on a context.
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// Present reports whether ctx carries loaders.
func Present(ctx context.Context) bool {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	return l != nil
}

// from returns the request's loaders.
func from(ctx context.Context) *Loaders {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	if l == nil {
		panic("loaders: no loaders on the context; wrap the handler with loaders.Middleware")
	}
	return l
}
