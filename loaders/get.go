package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/fracti/api/store"
)

// The getters: each returns nil (and no error) for what does not exist. A
// getter for several things starts all the loads before it waits for any,
// so they share one batch window.

// Group is the group with this id.
func Group(ctx context.Context, groupID string) (*store.Group, error) {
	return from(ctx).group(ctx, groupID)()
}

// Groups are the groups with these ids, in their order.
func Groups(ctx context.Context, groupIDs []string) ([]*store.Group, error) {
	return from(ctx).groups(ctx, groupIDs)
}

func (l *Loaders) groups(ctx context.Context, groupIDs []string) ([]*store.Group, error) {
	thunks := make([]func() (*store.Group, error), len(groupIDs))
	for i, id := range groupIDs {
		thunks[i] = l.group(ctx, id)
	}
	return wait(thunks)
}

// group starts loading a group and returns what waits for it.
func (l *Loaders) group(ctx context.Context, groupID string) func() (*store.Group, error) {
	if f := lookup(&l.started.mu, &l.started.heads, groupID); f != nil {
		return func() (*store.Group, error) {
			h, err := f.get(ctx)
			return h.Group, err
		}
	}
	th := l.items.Load(ctx, store.GroupKey(groupID))
	return func() (*store.Group, error) { return item(th, groupOf) }
}

// member starts loading a membership and returns what waits for it: from
// the group's roster when that was started and can tell, else by key.
func (l *Loaders) member(ctx context.Context, k store.MemberKey) func() (*store.Member, error) {
	if f := lookup(&l.started.mu, &l.started.rosters, k.GroupID); f != nil {
		return func() (*store.Member, error) {
			r, err := f.get(ctx)
			if err != nil {
				return nil, err
			}
			if m, known := r.Member(k.UserID); known {
				return m, nil
			}
			return item(l.items.Load(ctx, k.Item()), memberOf)
		}
	}
	th := l.items.Load(ctx, k.Item())
	return func() (*store.Member, error) { return item(th, memberOf) }
}

// Member is a user's membership in a group, current or former.
func Member(ctx context.Context, groupID, userID string) (*store.Member, error) {
	return from(ctx).member(ctx, store.MemberKey{GroupID: groupID, UserID: userID})()
}

// Members are these users' memberships in a group, in their order.
func Members(ctx context.Context, groupID string, userIDs []string) ([]*store.Member, error) {
	l := from(ctx)
	thunks := make([]func() (*store.Member, error), len(userIDs))
	for i, u := range userIDs {
		thunks[i] = l.member(ctx, store.MemberKey{GroupID: groupID, UserID: u})
	}
	return wait(thunks)
}

// PreloadMembers starts reading a group's METADATA and these users'
// memberships in it, in one read that waits for no batch window, without
// waiting for it: a request that checks the viewer (give their id) and then
// the users an input names reads them all at once. At most maxPreload
// users are read.
func PreloadMembers(ctx context.Context, groupID string, userIDs []string) {
	from(ctx).items.preload(ctx, membersKeys(groupID, userIDs))
}

// GroupItemsToRead are the keys of a group's METADATA and these users'
// memberships in it that the request has not read yet (at most maxPreload
// users): for a read that another one makes with its own (PrimeGroupItems).
func GroupItemsToRead(ctx context.Context, groupID string, userIDs []string) []store.GroupItemKey {
	c := from(ctx).items.cache
	var keys []store.GroupItemKey
	seen := map[store.GroupItemKey]bool{}
	for _, k := range membersKeys(groupID, userIDs) {
		if _, cached := c.Get(ctx, k); !cached && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// PrimeGroupItems caches group items read elsewhere, aligned with keys.
func PrimeGroupItems(ctx context.Context, keys []store.GroupItemKey, items []store.GroupItem) {
	l := from(ctx)
	for i, k := range keys {
		l.items.prime(ctx, k, &items[i])
	}
}

// membersKeys are the keys of a group's METADATA and these users'
// memberships, at most maxPreload of them.
func membersKeys(groupID string, userIDs []string) []store.GroupItemKey {
	keys := []store.GroupItemKey{store.GroupKey(groupID)}
	for _, u := range userIDs[:min(len(userIDs), maxPreload)] {
		keys = append(keys, store.MemberKey{GroupID: groupID, UserID: u}.Item())
	}
	return keys
}

// maxPreload bounds what one PreloadMembers reads, so that an input too
// large to be valid cannot make a large read before it is refused.
const maxPreload = store.MaxExpenseParticipants + 1

// GroupAndMember is a group and one user's membership in it: the pair every
// check of who may see a group needs, read together.
func GroupAndMember(ctx context.Context, groupID, userID string) (*store.Group, *store.Member, error) {
	l := from(ctx)
	member := l.member(ctx, store.MemberKey{GroupID: groupID, UserID: userID})
	group := l.group(ctx, groupID)
	m, err := member()
	if err != nil {
		return nil, nil, err
	}
	g, err := group()
	return g, m, err
}

// Expense is the expense a reference names (by key when it has one, else by id).
func Expense(ctx context.Context, ref store.ExpenseRef) (*store.Expense, error) {
	return from(ctx).expenses.Load(ctx, ref)()
}

// Settlement is the settlement a reference names.
func Settlement(ctx context.Context, ref store.SettlementRef) (*store.Settlement, error) {
	return from(ctx).settlements.Load(ctx, ref)()
}

// Invite is the invite a reference names (an activity event's subject).
func Invite(ctx context.Context, ref store.InviteRef) (*store.Invite, error) {
	return from(ctx).invites.Load(ctx, ref)()
}

// Balances are a group's kept balances: from its head when that was
// started, else its ledger and then its books.
func Balances(ctx context.Context, groupID string) (*store.GroupBalances, error) {
	gbs, err := BalancesOf(ctx, []string{groupID})
	if err != nil {
		return nil, err
	}
	return gbs[0], nil
}

// BalancesOf are these groups' kept balances, in their order: all their
// ledgers in one batch, then all their books in another.
func BalancesOf(ctx context.Context, groupIDs []string) ([]*store.GroupBalances, error) {
	l := from(ctx)
	out := make([]*store.GroupBalances, len(groupIDs))
	var rest []int
	for i, id := range groupIDs {
		if f := lookup(&l.started.mu, &l.started.heads, id); f != nil {
			h, err := f.get(ctx)
			if err != nil {
				return nil, err
			}
			out[i] = h.Balances
			continue
		}
		rest = append(rest, i)
	}
	ids := pick(groupIDs, rest)
	l.preloadGroups(ctx, ids, false, true)
	books, err := many(l.books.LoadMany(ctx, ids)())
	if err != nil {
		return nil, err
	}
	for j, i := range rest {
		out[i] = books[j]
	}
	return out, nil
}

// PrefetchBalances starts loading groups with their balances: the groups
// and their ledgers in one batch, then (once the ledgers are in) all their
// books in another, which each group's Group and Balances then find.
func PrefetchBalances(ctx context.Context, groupIDs []string) {
	from(ctx).preloadGroups(ctx, groupIDs, true, true)
}

// preloadGroups starts loading, in one batch, the groups (when groups) and
// their ledgers (when balances), and then, once the ledgers are in, all
// their books in another.
func (l *Loaders) preloadGroups(ctx context.Context, groupIDs []string, groups, balances bool) {
	var keys []store.GroupItemKey
	if groups {
		keys = groupKeys(groupIDs)
	}
	if balances {
		keys = append(keys, ledgerKeys(groupIDs)...)
	}
	l.items.preload(ctx, keys)
	if balances {
		l.books.preload(ctx, groupIDs) // its read waits for the ledgers
	}
}

// Prefetch starts loading, in one batch, groups and memberships that fields
// are about to ask for one by one (a membership its group's roster will
// answer is left to it).
func Prefetch(ctx context.Context, groupIDs []string, members []store.MemberKey) {
	l := from(ctx)
	keys := groupKeys(groupIDs)
	for _, k := range members {
		if lookup(&l.started.mu, &l.started.rosters, k.GroupID) == nil {
			keys = append(keys, k.Item())
		}
	}
	l.items.preload(ctx, keys)
}

func groupKeys(groupIDs []string) []store.GroupItemKey {
	keys := make([]store.GroupItemKey, len(groupIDs))
	for i, id := range groupIDs {
		keys[i] = store.GroupKey(id)
	}
	return keys
}

func ledgerKeys(groupIDs []string) []store.GroupItemKey {
	keys := make([]store.GroupItemKey, len(groupIDs))
	for i, id := range groupIDs {
		keys[i] = store.LedgerKey(id)
	}
	return keys
}

// ByID is the group, expense or settlement with this id (a *store.Group,
// *store.Expense or *store.Settlement), or nil: the three share the id space
// of UUIDs. The group and the expense are looked up at once; the settlement
// only when neither exists, which saves a lookup for every id that names
// one of the others (settlements are the fewest).
func ByID(ctx context.Context, id string) (any, error) {
	l := from(ctx)
	group := l.group(ctx, id)
	expense := l.expenses.Load(ctx, store.ExpenseRef{ID: id})
	if g, err := group(); err != nil || g != nil {
		return found(g, err)
	}
	if e, err := expense(); err != nil || e != nil {
		return found(e, err)
	}
	return found(l.settlements.Load(ctx, store.SettlementRef{ID: id})())
}

// PrefetchByID starts the lookups of ByID for every id at once, so that
// they share one batch however the goroutines that ask are scheduled.
func PrefetchByID(ctx context.Context, ids []string) {
	l := from(ctx)
	refs := make([]store.ExpenseRef, len(ids))
	for i, id := range ids {
		refs[i] = store.ExpenseRef{ID: id}
	}
	l.items.preload(ctx, groupKeys(ids))
	l.expenses.preload(ctx, refs)
}

// found is v as an interface, nil when v is a nil pointer or err is set (a
// nil pointer inside an interface is not nil).
func found[V any](v *V, err error) (any, error) {
	if err != nil || v == nil {
		return nil, err
	}
	return v, nil
}

// many turns dataloader's per-key errors into the first of them.
func many[V any](values []V, errs []error) ([]V, error) {
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return values, nil
}

// item waits for a group item and returns one of its fields.
func item[V any](th dataloader.Thunk[*store.GroupItem], field func(*store.GroupItem) *V) (*V, error) {
	it, err := th()
	if err != nil || it == nil {
		return nil, err
	}
	return field(it), nil
}

func groupOf(it *store.GroupItem) *store.Group   { return it.Group }
func memberOf(it *store.GroupItem) *store.Member { return it.Member }

// wait waits for every thunk, in order, and stops at the first error.
func wait[V any](thunks []func() (*V, error)) ([]*V, error) {
	out := make([]*V, len(thunks))
	for i, th := range thunks {
		v, err := th()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// pick is the values at the indexes.
func pick[V any](values []V, at []int) []V {
	out := make([]V, len(at))
	for j, i := range at {
		out[j] = values[i]
	}
	return out
}
