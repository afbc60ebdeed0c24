// Package loaders batches and caches, per request, the lookups that GraphQL
// resolvers make one object at a time: groups, members, expenses and
// settlements by id. Fifty expenses asking for their payers cost one
// BatchGetItem, not fifty GetItems.
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

// Loaders are one request's dataloaders.
type Loaders struct {
	// Groups loads groups by id (BatchGetItem).
	Groups *dataloader.Loader[string, *store.Group]
	// Members loads memberships by group and user (BatchGetItem).
	Members *dataloader.Loader[store.MemberKey, *store.Member]
	// Expenses loads expenses by key when the ref has one (BatchGetItem), by id otherwise (GSI2).
	Expenses *dataloader.Loader[store.ExpenseRef, *store.Expense]
	// Settlements loads settlements like Expenses does expenses.
	Settlements *dataloader.Loader[store.SettlementRef, *store.Settlement]
	// Balances loads groups' kept balances (two BatchGetItem rounds per batch).
	Balances *dataloader.Loader[string, *store.GroupBalances]
}

// New returns fresh loaders over s that wait wait before each batch.
func New(s *store.Store, wait time.Duration) *Loaders {
	return &Loaders{
		Groups:      newLoader(wait, s.GetGroups),
		Members:     newLoader(wait, s.GetMembers),
		Expenses:    newLoader(wait, s.GetExpenses),
		Settlements: newLoader(wait, s.GetSettlements),
		Balances:    newLoader(wait, s.GetBalances),
	}
}

// newLoader turns a store batch read (results aligned with keys, nil when
// missing) into a dataloader. Batches are capped at BatchGetItem's 100 keys.
func newLoader[K comparable, V any](wait time.Duration, fetch func(context.Context, []K) ([]*V, error)) *dataloader.Loader[K, *V] {
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
	return dataloader.NewBatchedLoader(batch,
		dataloader.WithWait[K, *V](wait),
		dataloader.WithBatchCapacity[K, *V](store.MaxBatchGet),
	)
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

// For returns the request's loaders.
func For(ctx context.Context) *Loaders {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	if l == nil {
		panic("loaders: no loaders on the context; wrap the handler with loaders.Middleware")
	}
	return l
}
