// Package loaders batches and caches, per request, the lookups that GraphQL
// resolvers make one object at a time: groups, members, expenses,
// settlements, invites, recurring expenses and balances. Fifty expenses asking for their payers
// cost one BatchGetItem, not fifty GetItems; groups, memberships and ledgers
// wanted at the same moment share one BatchGetItem.
//
// A resolver that knows what its children will ask for starts those reads
// before they do (prefetch.go): a group's screen reads its head, roster and
// lists at once, in one round trip, and its payers and beneficiaries come
// from the roster without a read of their own.
//
// Resolvers use the typed getters (Group, Member, Expense, …) and, after a
// write, Wrote: the loaders own their cache, including what a write makes
// stale.
package loaders

import (
	"context"
	"net/http"
	"time"

	"github.com/fracti/api/payments"
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
	store       *store.Store
	items       loader[store.GroupItemKey, store.GroupItem] // groups, memberships, ledgers
	books       loader[string, store.GroupBalances]         // after their ledgers
	expenses    loader[store.ExpenseRef, store.Expense]
	settlements loader[store.SettlementRef, store.Settlement]
	invites     loader[store.InviteRef, store.Invite]
	series      loader[store.SeriesKey, store.Series]
	comments    loader[store.CommentRef, store.Comment]
	// payDefaults are users' default payment handles, by user id.
	payDefaults loader[string, payments.Handles]
	started     started // the reads prefetch started
}

// loader is a dataloader with the cache it fills, kept at hand so that a
// write can drop entries by what they belong to.
type loader[K comparable, V any] struct {
	*dataloader.Loader[K, *V]
	cache *cache[K, *V]
	fetch func(context.Context, []K) ([]*V, error)
}

// BatchObserver is told the number of keys of every batch read a loader
// makes (a dataloader batch or a prefetch), with the loader's name: items,
// books, expenses, settlements, invites, series, comments or payDefaults.
type BatchObserver func(loader string, keys int)

// Option tunes the loaders New makes.
type Option func(*options)

type options struct {
	observe BatchObserver
	detach  time.Duration
}

// Detached has every read run on a context of its own, bounded by timeout,
// rather than on the context of whoever asked first: loaders shared by
// several requests (one live event's subscribers) must not fail for all of
// them because the first one went away.
func Detached(timeout time.Duration) Option {
	return func(o *options) { o.detach = timeout }
}

// ObserveBatches has every batch read reported to observe (nil: none is).
func ObserveBatches(observe BatchObserver) Option {
	return func(o *options) { o.observe = observe }
}

// New returns fresh loaders over s that wait wait before each batch.
func New(s *store.Store, wait time.Duration, opts ...Option) *Loaders {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	l := &Loaders{
		store:       s,
		items:       newLoader("items", wait, o, groupItems(s)),          // BatchGetItem
		expenses:    newLoader("expenses", wait, o, s.GetExpenses),       // BatchGetItem by key, GSI2 by id
		settlements: newLoader("settlements", wait, o, s.GetSettlements), // like expenses
		invites:     newLoader("invites", wait, o, s.GetInvites),         // BatchGetItem by key
		series:      newLoader("series", wait, o, s.GetSeriesByKeys),     // BatchGetItem by key
		comments:    newLoader("comments", wait, o, s.GetComments),       // BatchGetItem by key, GSI2 by id
	}
	l.books = newLoader("books", wait, o, l.fetchBooks) // BatchGetItem, once the ledgers are in
	// BatchGetItem of the users' profiles:
	l.payDefaults = newLoader("payDefaults", wait, o, s.GetDefaultPaymentHandles)
	return l
}

// groupItems adapts GetGroupItems to a loader's batch function.
func groupItems(s *store.Store) func(context.Context, []store.GroupItemKey) ([]*store.GroupItem, error) {
	return func(ctx context.Context, keys []store.GroupItemKey) ([]*store.GroupItem, error) {
		items, err := s.GetGroupItems(ctx, keys)
		out := make([]*store.GroupItem, len(items))
		for i := range items {
			out[i] = &items[i]
		}
		return out, err
	}
}

// fetchBooks reads the books of groups whose ledgers the items loader holds
// or is reading (BalancesOf starts them first); a group without a ledger
// has no balances.
func (l *Loaders) fetchBooks(ctx context.Context, groupIDs []string) ([]*store.GroupBalances, error) {
	thunks := make([]dataloader.Thunk[*store.GroupItem], len(groupIDs))
	for i, id := range groupIDs {
		thunks[i] = l.items.Load(ctx, store.LedgerKey(id))
	}
	ledgers := make([]*store.Ledger, len(groupIDs))
	for i, th := range thunks {
		it, err := th()
		if err != nil {
			return nil, err
		}
		ledgers[i] = it.Ledger
	}
	return l.store.GetBooks(ctx, ledgers)
}

// newLoader turns a store batch read (results aligned with keys, nil when
// missing) into a dataloader. Batches are capped at BatchGetItem's 100 keys.
// Every read, batched or prefetched, is reported to o.observe under name.
func newLoader[K comparable, V any](name string, wait time.Duration, o options, fetch func(context.Context, []K) ([]*V, error)) loader[K, V] {
	if o.observe != nil {
		read := fetch
		fetch = func(ctx context.Context, keys []K) ([]*V, error) {
			o.observe(name, len(keys))
			return read(ctx, keys)
		}
	}
	if o.detach > 0 {
		read := fetch
		fetch = func(ctx context.Context, keys []K) ([]*V, error) {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.detach)
			defer cancel()
			return read(ctx, keys)
		}
	}
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
		fetch: fetch,
	}
}

// preload reads the keys not cached yet with one direct fetch, in the
// background, and caches for each a thunk that waits for it. Unlike Load it
// waits for no batch window, and a long list of keys cannot straddle two
// batches however slowly the caller's loop runs.
func (l loader[K, V]) preload(ctx context.Context, keys []K) {
	c := l.cache
	c.mu.Lock() // check and fill at once: two preloads of one key make one read
	defer c.mu.Unlock()
	var missing []K
	for _, k := range keys {
		if _, cached := c.entries[k]; !cached {
			c.entries[k] = nil // claimed; filled below, before anyone can look
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return
	}
	f := goFetch(ctx, func(ctx context.Context) ([]*V, error) { return l.fetch(ctx, missing) })
	for i, k := range missing {
		c.entries[k] = func() (*V, error) {
			values, err := f.get(ctx)
			if err != nil {
				return nil, err
			}
			return values[i], nil
		}
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
func Middleware(s *store.Store, wait time.Duration, opts ...Option) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), New(s, wait, opts...))))
		})
	}
}

// With puts loaders on a context, and makes the store's lists of a user's
// items filter by the user's groups as the loaders read them once.
func With(ctx context.Context, l *Loaders) context.Context {
	ctx = store.WithCurrentGroups(ctx, l.currentGroupIDs)
	return context.WithValue(ctx, ctxKey{}, l)
}

// Present reports whether ctx carries loaders.
func Present(ctx context.Context) bool {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	return l != nil || SlotFrom(ctx) != nil
}

// from returns the request's loaders.
func from(ctx context.Context) *Loaders {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	if s := SlotFrom(ctx); l == nil && s != nil {
		return s.get()
	}
	if l == nil {
		panic("loaders: no loaders on the context; wrap the handler with loaders.Middleware")
	}
	return l
}
