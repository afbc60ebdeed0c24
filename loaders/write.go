package loaders

import (
	"context"

	"github.com/fracti/api/store"
)

// Wrote drops from the request's cache everything a write to the group can
// have changed: the group, its memberships, its expenses and settlements
// (including any loaded by id alone, whose group the cache does not know),
// its invites, its comments, its balances, and the reads started ahead (any page, any user's groups). Every mutation calls it after writing, so that what it
// returns, and every mutation after it in the same operation, reads the
// group as the write left it.
func Wrote(ctx context.Context, groupID string) {
	wrote(ctx, groupID, func(k store.GroupItemKey) bool { return k.GroupID == groupID })
}

// WroteEntries is Wrote for a write that records, changes or removes an
// expense, a settlement or a comment: such a write changes the group's
// ledger and books but never its METADATA or its memberships, so those stay
// cached (a response naming the payer reads nothing more).
func WroteEntries(ctx context.Context, groupID string) {
	wrote(ctx, groupID, func(k store.GroupItemKey) bool { return k.GroupID == groupID && k.Ledger })
}

// wrote drops what a write to the group can have changed, of the group's
// items those drop says.
func wrote(ctx context.Context, groupID string, drop func(store.GroupItemKey) bool) {
	l := from(ctx)
	l.started.forgetGroup(groupID)
	l.items.cache.deleteFunc(drop)
	l.books.Clear(ctx, groupID)
	l.expenses.cache.deleteFunc(func(r store.ExpenseRef) bool { return r.GroupID == groupID || r.GroupID == "" })
	l.settlements.cache.deleteFunc(func(r store.SettlementRef) bool { return r.GroupID == groupID || r.GroupID == "" })
	l.invites.cache.deleteFunc(func(r store.InviteRef) bool { return r.GroupID == groupID })
	l.series.cache.deleteFunc(func(k store.SeriesKey) bool { return k.GroupID == groupID })
	l.comments.cache.deleteFunc(func(r store.CommentRef) bool { return r.GroupID == groupID || r.GroupID == "" })
}

// PrimeGroup caches a group a write returned, so reading it again costs nothing.
func PrimeGroup(ctx context.Context, g *store.Group) {
	from(ctx).items.prime(ctx, store.GroupKey(g.ID), &store.GroupItem{Group: g})
}

// PrimeMember caches a membership a write returned.
func PrimeMember(ctx context.Context, m *store.Member) {
	from(ctx).items.prime(ctx, m.Key().Item(), &store.GroupItem{Member: m})
}
