package graph

import (
	"context"
	"fmt"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

func currentUser(ctx context.Context) (*model.User, error) {
	id, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	return &model.User{ID: id.UserKey(), Name: id.Name, Username: nullable(id.Username)}, nil
}

// The user's lists are the viewer's own records: User objects are only ever
// the viewer (see me and node).

func (r *Resolver) userGroups(ctx context.Context, u *model.User, first *int, after *string) (*model.GroupConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserGroups(ctx, u.ID, args)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(p.Items))
	for i, m := range p.Items {
		ids[i] = m.GroupID
	}
	groups, errs := loaders.For(ctx).Groups.LoadMany(ctx, ids)()
	for i, g := range groups {
		if len(errs) > i && errs[i] != nil {
			return nil, errs[i]
		}
		if g == nil {
			return nil, &internalError{fmt.Errorf("group %s of a membership is missing", ids[i])}
		}
	}
	edges := make([]model.GroupEdge, len(groups))
	nodes := make([]store.Group, len(groups))
	for i, g := range groups {
		edges[i], nodes[i] = model.GroupEdge{Cursor: p.Cursors[i], Node: g}, *g
	}
	return &model.GroupConnection{Edges: edges, Nodes: nodes, PageInfo: pageInfo(p)}, nil
}

func (r *Resolver) userExpensesPaid(ctx context.Context, u *model.User, first *int, after *string) (*model.ExpenseConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserExpenses(ctx, u.ID, args)
	if err != nil {
		return nil, err
	}
	return expenseConnection(p), nil
}

func (r *Resolver) userOwes(ctx context.Context, u *model.User, first *int, after *string) (*model.ShareConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserShares(ctx, u.ID, args)
	if err != nil {
		return nil, err
	}
	return shareConnection(p), nil
}

func (r *Resolver) userSettlements(ctx context.Context, u *model.User, first *int, after *string) (*model.SettlementConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserSettlements(ctx, u.ID, args)
	if err != nil {
		return nil, err
	}
	return settlementConnection(p), nil
}

func (r *Resolver) userActivity(ctx context.Context, u *model.User, first *int, after *string) (*model.ActivityConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserActivity(ctx, u.ID, args)
	if err != nil {
		return nil, err
	}
	edges, _, info := connection(p, func(c string, a *store.Activity) model.ActivityEdge {
		return model.ActivityEdge{Cursor: c, Node: activityItem(a)}
	})
	nodes := make([]model.ActivityItem, len(edges))
	for i, e := range edges {
		nodes[i] = e.Node
	}
	return &model.ActivityConnection{Edges: edges, Nodes: nodes, PageInfo: info}, nil
}

func activityItem(a *store.Activity) model.ActivityItem {
	if a.Expense != nil {
		return a.Expense
	}
	return a.Settlement
}
