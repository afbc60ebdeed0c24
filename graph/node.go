package graph

import (
	"context"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// node finds any Node by id. The id's shape tells the type apart, except for
// a UUID, which may name a group, an expense or a settlement: those three
// lookups go out together.
func (r *Resolver) node(ctx context.Context, id string) (model.Node, error) {
	switch {
	case telegramIDPattern.MatchString(id):
		if id != viewerID(ctx) {
			return nil, nil // other users are seen only as members of shared groups
		}
		return currentUser(ctx)
	case uuidPattern.MatchString(id):
		l := loaders.For(ctx)
		g := l.Groups.Load(ctx, id)
		e := l.Expenses.Load(ctx, store.ExpenseRef{ID: id})
		s := l.Settlements.Load(ctx, store.SettlementRef{ID: id})
		if found, err := g(); err != nil || found != nil {
			return nilIfHidden(visibleGroup(ctx, id))
		}
		if found, err := e(); err != nil || found != nil {
			return nilIfHidden(visibleExpense(ctx, store.ExpenseRef{ID: id}))
		}
		if found, err := s(); err != nil || found != nil {
			return nilIfHidden(visibleSettlement(ctx, store.SettlementRef{ID: id}))
		}
		return nil, nil
	}
	if groupID, userID, ok := parseMemberID(id); ok {
		if g, err := visibleGroup(ctx, groupID); err != nil || g == nil {
			return nil, err
		}
		// Former members too: expenses and settlements still name them.
		return nilIfHidden(loaders.For(ctx).Members.Load(ctx, store.MemberKey{GroupID: groupID, UserID: userID})())
	}
	return nil, nil
}

// nilIfHidden makes a typed nil pointer an untyped nil Node, which GraphQL
// renders as null (a typed nil inside an interface is not nil).
func nilIfHidden[T any](v *T, err error) (model.Node, error) {
	if err != nil || v == nil {
		return nil, err
	}
	return v, nil
}
