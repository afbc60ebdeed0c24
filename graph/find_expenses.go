package graph

import (
	"context"

	"github.com/fracti/api/freetext"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// Finding expenses (Group.expenses and User.expenses with a filter): the
// filter is checked here and read by the store (store/find_expenses.go).

// maxSearchLength and maxSearchWords bound a search: each word is compared
// with every word of every expense read.
const (
	maxSearchLength = 200
	maxSearchWords  = 10
)

// expenseFilter checks a filter argument; nil is the zero filter.
func expenseFilter(in *model.ExpenseFilter) (store.ExpenseFilter, error) {
	var f store.ExpenseFilter
	if in == nil {
		return f, nil
	}
	if in.From != nil {
		f.From = *in.From // a Date: a valid day by now
	}
	if in.To != nil {
		f.To = *in.To
	}
	if f.From != "" && f.To != "" && f.To < f.From {
		return f, badInput("filter.to", "the range ends (%s) before it starts (%s)", f.To, f.From)
	}
	if in.Category != nil {
		category, err := text("filter.category", *in.Category, 0, maxCategoryLength)
		if err != nil {
			return f, err
		}
		f.Category = &category
	}
	for _, id := range []struct {
		field string
		in    *string
		out   *string
	}{{"filter.payerId", in.PayerID, &f.PayerID}, {"filter.participantId", in.ParticipantID, &f.ParticipantID}} {
		if id.in == nil {
			continue
		}
		if !memberUserIDPattern.MatchString(*id.in) {
			return f, badInput(id.field, "%q is not a member's id", *id.in)
		}
		*id.out = *id.in
	}
	var cur *money.Currency
	if in.Currency != nil {
		c, err := money.LookupCurrency(*in.Currency)
		if err != nil {
			return f, moneyError("filter.currency", err)
		}
		f.Currency, cur = c.Code(), &c
	}
	for _, a := range []struct {
		field string
		in    *money.Decimal
		out   **money.Decimal
	}{{"filter.minAmount", in.MinAmount, &f.MinAmount}, {"filter.maxAmount", in.MaxAmount, &f.MaxAmount}} {
		if a.in == nil {
			continue
		}
		if a.in.Sign() < 0 {
			return f, badInput(a.field, "must not be negative")
		}
		if cur != nil {
			if _, err := money.AmountFromDecimal(*a.in, *cur); err != nil {
				return f, moneyError(a.field, err)
			}
		}
		*a.out = a.in
	}
	if f.MinAmount != nil && f.MaxAmount != nil && f.MaxAmount.Cmp(*f.MinAmount) < 0 {
		return f, badInput("filter.maxAmount", "is below minAmount (%s)", f.MinAmount)
	}
	f.Deleted = in.Deleted != nil && *in.Deleted
	if in.Search != nil {
		search, err := text("filter.search", *in.Search, 0, maxSearchLength)
		if err != nil {
			return f, err
		}
		f.Search = freetext.Words(search)
		switch {
		case search != "" && len(f.Search) == 0:
			return f, badInput("filter.search", "has no word to find (letters or digits)")
		case len(f.Search) > maxSearchWords:
			return f, badInput("filter.search", "has %d words; at most %d", len(f.Search), maxSearchWords)
		}
	}
	return f, nil
}

// groupExpenses is Group.expenses: the list as it always was without a
// filter (the same reads, prefetched, and cursors), the store's search with one.
func (r *groupResolver) groupExpenses(ctx context.Context, g *store.Group, first *int, after *string, filter *model.ExpenseFilter) (*model.ExpenseConnection, error) {
	f, err := expenseFilter(filter)
	if err != nil {
		return nil, err
	}
	if f.IsZero() {
		c, err := listConnection(ctx, "expenses", r.Store.ListExpenses, g.ID, first, after, expenseEdge)
		return (*model.ExpenseConnection)(c), err
	}
	find := func(ctx context.Context, _ string, args store.PageArgs) (store.Page[store.Expense], error) {
		return r.Store.FindExpenses(ctx, g.Scope(), f, args)
	}
	c, err := listConnection(ctx, "find-expenses:"+f.Fingerprint(), find, g.ID, first, after, expenseEdge)
	return (*model.ExpenseConnection)(c), err
}

// userExpenses is User.expenses: the search over every group the viewer is
// a member of now (and no other: what a group holds is for its members).
func (r *userResolver) userExpenses(ctx context.Context, u *model.User, filter *model.ExpenseFilter, first *int, after *string) (*model.ExpenseConnection, error) {
	f, err := expenseFilter(filter)
	if err != nil {
		return nil, err
	}
	find := func(ctx context.Context, userID string, args store.PageArgs) (store.Page[store.Expense], error) {
		members, err := loaders.UserGroups(ctx, userID)
		if err != nil {
			return store.Page[store.Expense]{}, err
		}
		var ids []string
		for _, m := range members {
			if m.Active() {
				ids = append(ids, m.GroupID)
			}
		}
		groups, err := loaders.Groups(ctx, ids)
		if err != nil {
			return store.Page[store.Expense]{}, err
		}
		scopes := make([]store.ExpenseScope, 0, len(groups))
		for _, g := range groups {
			if g != nil {
				scopes = append(scopes, g.Scope())
			}
		}
		return r.Store.FindUserExpenses(ctx, userID, scopes, f, args)
	}
	c, err := listConnection(ctx, "user-find-expenses:"+f.Fingerprint(), find, u.ID, first, after, expenseEdge)
	return (*model.ExpenseConnection)(c), err
}
