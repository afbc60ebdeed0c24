package loaders

import (
	"context"

	"github.com/fracti/api/store"
)

// Wrote drops from the request's cache everything a write to the group can
// have changed: the group, its memberships, its expenses and settlements
// (including any loaded by id alone, whose group the cache does not know)
// and its balances. Every mutation calls it after writing, so that what it
// returns, and every mutation after it in the same operation, reads the
// group as the write left it.
func Wrote(ctx context.Context, groupID string) {
	l := from(ctx)
	l.groups.Clear(ctx, groupID)
	l.balances.Clear(ctx, groupID)
	l.members.cache.deleteFunc(func(k store.MemberKey) bool { return k.GroupID == groupID })
	l.expenses.cache.deleteFunc(func(r store.ExpenseRef) bool { return r.GroupID == groupID || r.GroupID == "" })
	l.settlements.cache.deleteFunc(func(r store.SettlementRef) bool { return r.GroupID == groupID || r.GroupID == "" })
}

// PrimeGroup caches a group a write returned, so reading it again costs nothing.
func PrimeGroup(ctx context.Context, g *store.Group) {
	from(ctx).groups.prime(ctx, g.ID, g)
}

// PrimeMember caches a membership a write returned.
func PrimeMember(ctx context.Context, m *store.Member) {
	from(ctx).members.prime(ctx, m.Key(), m)
}
