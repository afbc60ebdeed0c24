package graph

import (
	"context"
	"errors"
	"slices"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

func (r *Resolver) createExpense(ctx context.Context, in model.CreateExpenseInput) (*store.Expense, error) {
	g, err := visibleGroup(ctx, in.GroupID)
	if err != nil || g == nil {
		return nil, orNotFound(err, "group")
	}
	e, err := newExpense(ctx, g, in)
	if err != nil {
		return nil, err
	}
	key, err := idempotencyKey("input.idempotencyKey", in.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	created, err := r.Store.CreateExpense(ctx, g.Title, e, key)
	if errors.Is(err, store.ErrTooManyCurrencies) {
		return nil, currencyLimit(err)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, conflict("a member involved in the expense left the group meanwhile; reload and try again")
	}
	if err != nil {
		return nil, err
	}
	return &created, nil
}

func (r *Resolver) deleteExpense(ctx context.Context, id string) (string, error) {
	e, err := r.expenseByID(ctx, id)
	if err != nil || e == nil {
		return "", orNotFound(err, "expense")
	}
	me := viewerID(ctx)
	if me != e.CreatedBy && !slices.ContainsFunc(e.Payers, func(p store.Payment) bool { return p.UserID == me }) {
		return "", forbidden("only a member who paid or recorded this expense can delete it")
	}
	if err := r.Store.DeleteExpense(ctx, *e); err != nil {
		return "", err
	}
	loaders.For(ctx).Expenses.Clear(ctx, store.ExpenseRef{ID: id})
	return id, nil
}

// expenseByID is the expense with this id if the viewer may see it.
func (r *Resolver) expenseByID(ctx context.Context, id string) (*store.Expense, error) {
	if !uuidPattern.MatchString(id) {
		return nil, nil
	}
	return visibleExpense(ctx, store.ExpenseRef{ID: id})
}

func expenseConnection(p store.Page[store.Expense]) *model.ExpenseConnection {
	edges, nodes, info := connection(p, func(c string, e *store.Expense) model.ExpenseEdge { return model.ExpenseEdge{Cursor: c, Node: e} })
	return &model.ExpenseConnection{Edges: edges, Nodes: nodes, PageInfo: info}
}

func shareConnection(p store.Page[store.Share]) *model.ShareConnection {
	edges, nodes, info := connection(p, func(c string, s *store.Share) model.ShareEdge { return model.ShareEdge{Cursor: c, Node: s} })
	return &model.ShareConnection{Edges: edges, Nodes: nodes, PageInfo: info}
}

func (r *Resolver) shareExpense(ctx context.Context, sh *store.Share) (*store.Expense, error) {
	e, err := loaders.For(ctx).Expenses.Load(ctx, sh.ExpenseRef())()
	if err == nil && e == nil {
		err = notFound("expense") // deleted since the share was read
	}
	return e, err
}
