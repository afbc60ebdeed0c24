package loaders

import (
	"context"

	"github.com/fracti/api/store"
)

// The getters: each returns nil (and no error) for what does not exist. A
// getter for several things starts all the loads before it waits for any,
// so they share one batch window.

// Group is the group with this id.
func Group(ctx context.Context, groupID string) (*store.Group, error) {
	return from(ctx).groups.Load(ctx, groupID)()
}

// Groups are the groups with these ids, in their order.
func Groups(ctx context.Context, groupIDs []string) ([]*store.Group, error) {
	return many(from(ctx).groups.LoadMany(ctx, groupIDs)())
}

// Member is a user's membership in a group, current or former.
func Member(ctx context.Context, groupID, userID string) (*store.Member, error) {
	return from(ctx).members.Load(ctx, store.MemberKey{GroupID: groupID, UserID: userID})()
}

// Members are these users' memberships in a group, in their order.
func Members(ctx context.Context, groupID string, userIDs []string) ([]*store.Member, error) {
	keys := make([]store.MemberKey, len(userIDs))
	for i, u := range userIDs {
		keys[i] = store.MemberKey{GroupID: groupID, UserID: u}
	}
	return many(from(ctx).members.LoadMany(ctx, keys)())
}

// GroupAndMember is a group and one user's membership in it: the pair every
// check of who may see a group needs.
func GroupAndMember(ctx context.Context, groupID, userID string) (*store.Group, *store.Member, error) {
	l := from(ctx)
	member := l.members.Load(ctx, store.MemberKey{GroupID: groupID, UserID: userID})
	group := l.groups.Load(ctx, groupID)
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

// Balances are a group's kept balances.
func Balances(ctx context.Context, groupID string) (*store.GroupBalances, error) {
	return from(ctx).balances.Load(ctx, groupID)()
}

// BalancesOf are these groups' kept balances, in their order.
func BalancesOf(ctx context.Context, groupIDs []string) ([]*store.GroupBalances, error) {
	return many(from(ctx).balances.LoadMany(ctx, groupIDs)())
}

// ByID is the group, expense or settlement with this id (a *store.Group,
// *store.Expense or *store.Settlement), or nil: the three share the id space
// of UUIDs, so all three are looked up at once and the first found wins.
func ByID(ctx context.Context, id string) (any, error) {
	l := from(ctx)
	group := l.groups.Load(ctx, id)
	expense := l.expenses.Load(ctx, store.ExpenseRef{ID: id})
	settlement := l.settlements.Load(ctx, store.SettlementRef{ID: id})
	if g, err := group(); err != nil || g != nil {
		return found(g, err)
	}
	if e, err := expense(); err != nil || e != nil {
		return found(e, err)
	}
	return found(settlement())
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
