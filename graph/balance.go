package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// balancesOf loads a visible group's kept balances.
func balancesOf(ctx context.Context, groupID string) (*store.GroupBalances, error) {
	gb, err := loaders.For(ctx).Balances.Load(ctx, groupID)()
	if err == nil && gb == nil {
		err = &internalError{fmt.Errorf("ledger of group %s is missing", groupID)}
	}
	return gb, err
}

// balance is one user's balance in a book (all zero if the book has none).
func balance(groupID, userID string, b *ledger.Book) model.Balance {
	z := money.Zero(b.Currency)
	out := model.Balance{GroupID: groupID, UserID: userID, Currency: b.Currency, Paid: z, Owed: z, Sent: z, Received: z, Net: z}
	if u := b.Users[userID]; u != nil {
		out.Paid, out.Owed, out.Sent, out.Received, out.Net = u.Paid, u.Owed, u.Sent, u.Received, u.Net()
	}
	return out
}

// groupBalances lists, per currency the group uses, every current member's
// balance, and anyone else's the book holds that is not zero.
func groupBalances(ctx context.Context, g *store.Group) ([]model.Balance, error) {
	gb, err := balancesOf(ctx, g.ID)
	if err != nil {
		return nil, err
	}
	var out []model.Balance
	for _, b := range gb.Books {
		users := slices.Clone(gb.MemberIDs)
		for u, ub := range b.Users {
			if !slices.Contains(users, u) && !ub.Net().IsZero() {
				users = append(users, u)
			}
		}
		slices.Sort(users)
		for _, u := range users {
			out = append(out, balance(g.ID, u, b))
		}
	}
	return out, nil
}

// memberBalances is one member's balance in every currency the group uses.
func memberBalances(ctx context.Context, m *store.Member) ([]model.Balance, error) {
	gb, err := balancesOf(ctx, m.GroupID)
	if err != nil {
		return nil, err
	}
	out := make([]model.Balance, len(gb.Books))
	for i, b := range gb.Books {
		out[i] = balance(m.GroupID, m.UserID, b)
	}
	return out, nil
}

// groupDebts settles every currency's balances: with the fewest transfers,
// or pairwise as the expenses and settlements left them.
func groupDebts(ctx context.Context, g *store.Group, simplify *bool) ([]model.Debt, error) {
	gb, err := balancesOf(ctx, g.ID)
	if err != nil {
		return nil, err
	}
	var out []model.Debt
	for _, b := range gb.Books {
		var transfers []ledger.Transfer
		if simplify == nil || *simplify {
			if transfers, err = b.Simplified(); err != nil {
				return nil, &internalError{fmt.Errorf("group %s %s: %w", g.ID, b.Currency, err)}
			}
		} else {
			transfers = ledger.Pairwise(b)
		}
		for _, t := range transfers {
			out = append(out, model.Debt{GroupID: g.ID, FromID: t.From, ToID: t.To, Amount: t.Amount})
		}
	}
	return out, nil
}

// userSummary totals the user's balances per currency across their groups:
// it reads their memberships and the groups' ledgers and books, so its cost
// grows with the number of groups, never with the number of expenses.
func (r *Resolver) userSummary(ctx context.Context, u *model.User) (*model.UserSummary, error) {
	var groupIDs []string
	args := store.PageArgs{First: store.MaxPageSize}
	for {
		p, err := r.Store.ListUserGroups(ctx, u.ID, args)
		if err != nil {
			return nil, err
		}
		for _, m := range p.Items {
			groupIDs = append(groupIDs, m.GroupID)
		}
		if !p.HasNext {
			break
		}
		args.After = p.Cursors[len(p.Cursors)-1]
	}
	all, errs := loaders.For(ctx).Balances.LoadMany(ctx, groupIDs)()
	totals := map[money.Currency]*model.CurrencyTotal{}
	for i, gb := range all {
		if len(errs) > i && errs[i] != nil {
			return nil, errs[i]
		}
		if gb == nil {
			continue
		}
		for _, b := range gb.Books {
			t := totals[b.Currency]
			if t == nil {
				z := money.Zero(b.Currency)
				t = &model.CurrencyTotal{UserID: u.ID, Currency: b.Currency, YouAreOwed: z, YouOwe: z, Net: z}
				totals[b.Currency] = t
			}
			net := balance(gb.GroupID, u.ID, b).Net
			if net.Sign() > 0 {
				t.YouAreOwed = t.YouAreOwed.Add(net)
			} else {
				t.YouOwe = t.YouOwe.Sub(net)
			}
			t.Net = t.Net.Add(net)
		}
	}
	out := &model.UserSummary{ID: u.ID}
	for _, t := range totals {
		out.Totals = append(out.Totals, *t)
	}
	slices.SortFunc(out.Totals, func(a, b model.CurrencyTotal) int { return strings.Compare(a.Currency.Code(), b.Currency.Code()) })
	return out, nil
}

func (r *Resolver) leaveGroup(ctx context.Context, groupID string) (string, error) {
	if ok, err := isMember(ctx, groupID); err != nil || !ok {
		return "", orNotFound(err, "group")
	}
	m, err := r.Store.LeaveGroup(ctx, groupID, viewerID(ctx))
	if err != nil {
		return "", err
	}
	l := loaders.For(ctx)
	l.Members.Clear(ctx, m.Key()).Prime(ctx, m.Key(), &m)
	l.Groups.Clear(ctx, groupID)
	return memberID(groupID, m.UserID), nil
}

func balanceID(b *model.Balance) string {
	return b.GroupID + ":" + b.UserID + ":" + b.Currency.Code()
}

func debtID(d *model.Debt) string {
	return d.GroupID + ":" + d.FromID + ":" + d.ToID + ":" + d.Amount.Currency().Code()
}
