package loaders

import (
	"context"
	"fmt"
	"sync"

	"github.com/fracti/api/store"
)

// Reads started ahead: a resolver that sees what its children will ask for
// starts their reads at once, so that they run side by side instead of one
// after the other. The children find them here, under what they read.

// future is a read under way.
type future[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// goFetch starts fetch in its own goroutine. A panic in it becomes its
// error: nothing recovers a goroutine the executor did not start.
func goFetch[V any](ctx context.Context, fetch func(context.Context) (V, error)) *future[V] {
	f := &future[V]{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		defer func() {
			if p := recover(); p != nil {
				f.err = fmt.Errorf("loaders: read panicked: %v", p)
			}
		}()
		f.v, f.err = fetch(ctx)
	}()
	return f
}

// get waits for the read.
func (f *future[V]) get(ctx context.Context) (V, error) {
	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// started holds one request's reads started ahead.
type started struct {
	mu         sync.Mutex
	heads      map[string]*future[store.GroupHead]
	rosters    map[string]*future[*store.Roster]
	pages      map[PageKey]*future[any]
	userGroups map[string]*future[[]store.Member]
}

// startOnce returns the read under key in m, starting it first if there is none.
func startOnce[K comparable, V any](ctx context.Context, mu *sync.Mutex, m *map[K]*future[V], key K, fetch func(context.Context) (V, error)) *future[V] {
	mu.Lock()
	defer mu.Unlock()
	if f := (*m)[key]; f != nil {
		return f
	}
	if *m == nil {
		*m = map[K]*future[V]{}
	}
	f := goFetch(ctx, fetch)
	(*m)[key] = f
	return f
}

// lookup returns the read under key in m, or nil. It takes the map by
// pointer, as startOnce does: startOnce may be making the map under mu.
func lookup[K comparable, V any](mu *sync.Mutex, m *map[K]*future[V], key K) *future[V] {
	mu.Lock()
	defer mu.Unlock()
	return (*m)[key]
}

// forgetGroup drops what was started for the group, and every page and
// user's groups list: a write to the group may have changed any of them.
func (s *started) forgetGroup(groupID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.heads, groupID)
	delete(s.rosters, groupID)
	clear(s.pages)
	clear(s.userGroups)
}

// PrefetchGroup starts reading what a group's fields will ask for: its head
// (the group with its balances, one Query) and its roster (every
// membership, one Query), either or both. Until the request writes to the
// group, Group, Balances and Member answer from them.
func PrefetchGroup(ctx context.Context, groupID string, head, roster bool) {
	l := from(ctx)
	if head {
		startOnce(ctx, &l.started.mu, &l.started.heads, groupID, func(ctx context.Context) (store.GroupHead, error) {
			return l.store.GetGroupHead(ctx, groupID)
		})
	}
	if roster {
		startOnce(ctx, &l.started.mu, &l.started.rosters, groupID, func(ctx context.Context) (*store.Roster, error) {
			return l.store.GetRoster(ctx, groupID)
		})
	}
}

// roster is the group's roster if its read was started, else nil.
func (l *Loaders) roster(ctx context.Context, groupID string) (*store.Roster, error) {
	f := lookup(&l.started.mu, &l.started.rosters, groupID)
	if f == nil {
		return nil, nil
	}
	return f.get(ctx)
}

// MembersPage is a page of the group's current members: from its roster
// when that was started and holds them all, else read.
func MembersPage(ctx context.Context, groupID string, args store.PageArgs) (store.Page[store.Member], error) {
	l := from(ctx)
	r, err := l.roster(ctx, groupID)
	if err != nil {
		return store.Page[store.Member]{}, err
	}
	if r != nil && r.Complete {
		return l.store.MembersPage(r, args)
	}
	return l.store.ListMembers(ctx, groupID, args)
}

// PageKey names one page of a list: which list (a name its resolver
// chooses), whose, and which page.
type PageKey struct {
	List  string
	Owner string
	Args  store.PageArgs
}

// PrefetchPage starts reading a page that a field will ask for with Page.
func PrefetchPage[T any](ctx context.Context, key PageKey, fetch func(context.Context) (store.Page[T], error)) {
	l := from(ctx)
	startOnce(ctx, &l.started.mu, &l.started.pages, key, func(ctx context.Context) (any, error) { return fetch(ctx) })
}

// Page is the page key names: the one PrefetchPage started, or else read now.
func Page[T any](ctx context.Context, key PageKey, fetch func(context.Context) (store.Page[T], error)) (store.Page[T], error) {
	l := from(ctx)
	f := lookup(&l.started.mu, &l.started.pages, key)
	if f == nil {
		return fetch(ctx)
	}
	v, err := f.get(ctx)
	if err != nil {
		return store.Page[T]{}, err
	}
	return v.(store.Page[T]), nil
}

// UserGroupsWith says what to load with a user's groups as soon as their
// ids are known: the groups themselves, their balances.
type UserGroupsWith struct {
	Groups, Balances bool
}

// PrefetchUserGroups starts reading every membership of the user's current
// groups, which their summary, their lists' filter and their groups page
// then share, and then what with asks for of those groups, all before any
// of the fields that wait for the memberships go on: so they find it
// loaded, whichever of them runs first.
func PrefetchUserGroups(ctx context.Context, userID string, with UserGroupsWith) {
	from(ctx).userGroups(ctx, userID, with)
}

// userGroups starts, once per request, the read of the user's groups and
// the loads with asks for (the first caller's with counts: me, which runs
// before the fields under it).
func (l *Loaders) userGroups(ctx context.Context, userID string, with UserGroupsWith) *future[[]store.Member] {
	return startOnce(ctx, &l.started.mu, &l.started.userGroups, userID, func(ctx context.Context) ([]store.Member, error) {
		all, err := l.store.AllUserGroups(ctx, userID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(all))
		for i, m := range all {
			ids[i] = m.GroupID
		}
		// The groups are read with their ledgers (one batch) whatever with
		// says: a deleted group's memberships stay until it is purged, and
		// reading its METADATA is how every list, the summary and the
		// groups page leave it out from the moment it is deleted.
		l.preloadGroups(ctx, ids, true, with.Balances)
		groups, err := l.groups(ctx, ids)
		if err != nil {
			return nil, err
		}
		live := all[:0:0]
		for i, m := range all {
			if groups[i] != nil {
				live = append(live, m)
			}
		}
		return live, nil
	})
}

// UserGroups is every membership of the user's current groups, read once
// per request.
func UserGroups(ctx context.Context, userID string) ([]store.Member, error) {
	return from(ctx).userGroups(ctx, userID, UserGroupsWith{}).get(ctx)
}

// UserGroupsPage is a page of the user's groups (deleted ones left out),
// taken from all of them (read once per request with the groups, see
// userGroups): those archived when archived is true, those not archived
// when it is false, all of them when it is nil.
func UserGroupsPage(ctx context.Context, userID string, archived *bool, args store.PageArgs) (store.Page[store.Member], error) {
	l := from(ctx)
	all, err := l.userGroups(ctx, userID, UserGroupsWith{Groups: true}).get(ctx)
	if err != nil {
		return store.Page[store.Member]{}, err
	}
	if archived != nil {
		ids := make([]string, len(all))
		for i, m := range all {
			ids[i] = m.GroupID
		}
		groups, err := l.groups(ctx, ids) // loaded with the memberships
		if err != nil {
			return store.Page[store.Member]{}, err
		}
		kept := make([]store.Member, 0, len(all))
		for i, m := range all {
			if groups[i] != nil && groups[i].Archived() == *archived {
				kept = append(kept, m)
			}
		}
		all = kept
	}
	return l.store.UserGroupsPage(userID, all, args)
}

// currentGroupIDs is the store's CurrentGroupsFunc: it starts the read of
// the user's groups (once per request) and returns what waits for their ids.
func (l *Loaders) currentGroupIDs(ctx context.Context, userID string) func() ([]string, error) {
	f := l.userGroups(ctx, userID, UserGroupsWith{})
	return func() ([]string, error) {
		all, err := f.get(ctx)
		ids := make([]string, len(all))
		for i, m := range all {
			ids[i] = m.GroupID
		}
		return ids, err
	}
}
