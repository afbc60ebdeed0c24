package graph

import (
	"context"

	"github.com/fracti/api/freetext"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/fracti/api/ton"
)

// newMember describes the viewer joining a group, from their credentials.
func newMember(ctx context.Context) store.NewMember {
	id, _ := viewer(ctx)
	name := freetext.Sanitize(id.Name)
	switch {
	case name != "":
	case id.Username != "":
		name = id.Username
	default: // a Telegram name made only of characters we drop
		name = "User " + id.UserKey()
	}
	return store.NewMember{UserID: id.UserKey(), Name: name, Username: id.Username, AvatarURL: id.PhotoURL}
}

func (r *Resolver) createGroup(ctx context.Context, in model.CreateGroupInput) (*store.Group, error) {
	title, err := text("input.title", in.Title, 1, 128)
	if err != nil {
		return nil, err
	}
	cur, err := money.LookupCurrency(in.Currency)
	if err != nil {
		return nil, moneyError("input.currency", err)
	}
	chat, err := chatID("input.chatId", in.ChatID)
	if err != nil {
		return nil, err
	}
	ng := store.NewGroup{Title: title, ChatID: chat, Currency: cur, Creator: newMember(ctx)}
	if in.SettlementConfirmation != nil {
		ng.SettlementConfirmation = *in.SettlementConfirmation
	}
	g, m, err := r.Store.CreateGroup(ctx, ng)
	if err != nil {
		return nil, err
	}
	l := loaders.For(ctx)
	l.Groups.Prime(ctx, g.ID, &g)
	l.Members.Prime(ctx, m.Key(), &m)
	return &g, nil
}

func (r *Resolver) joinGroup(ctx context.Context, groupID string) (*store.Member, error) {
	if !uuidPattern.MatchString(groupID) {
		return nil, notFound("group")
	}
	m, _, err := r.Store.JoinGroup(ctx, groupID, newMember(ctx))
	if err != nil {
		return nil, err
	}
	l := loaders.For(ctx)
	l.Members.Clear(ctx, m.Key()).Prime(ctx, m.Key(), &m)
	l.Groups.Clear(ctx, groupID) // its memberCount changed
	return &m, nil
}

func (r *Resolver) updateWallet(ctx context.Context, groupID, wallet string) (*store.Member, error) {
	if ok, err := isMember(ctx, groupID); err != nil || !ok {
		return nil, orNotFound(err, "group")
	}
	if wallet != "" {
		if err := ton.ValidateAddress(wallet); err != nil {
			return nil, badInput("wallet", "%s", err.Error())
		}
	}
	m, err := r.Store.UpdateWallet(ctx, groupID, viewerID(ctx), wallet)
	if err != nil {
		return nil, err
	}
	loaders.For(ctx).Members.Clear(ctx, m.Key()).Prime(ctx, m.Key(), &m)
	return &m, nil
}

func (r *Resolver) groupMembers(ctx context.Context, g *store.Group, first *int, after *string) (*model.MemberConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListMembers(ctx, g.ID, args)
	if err != nil {
		return nil, err
	}
	edges, nodes, info := connection(p, func(c string, m *store.Member) model.MemberEdge { return model.MemberEdge{Cursor: c, Node: m} })
	return &model.MemberConnection{Edges: edges, Nodes: nodes, PageInfo: info}, nil
}

func (r *Resolver) groupMember(ctx context.Context, g *store.Group, userID string) (*store.Member, error) {
	if !telegramIDPattern.MatchString(userID) {
		return nil, nil
	}
	m, err := loaders.For(ctx).Members.Load(ctx, store.MemberKey{GroupID: g.ID, UserID: userID})()
	if err != nil || !m.Active() {
		return nil, err
	}
	return m, nil
}

func (r *Resolver) groupExpenses(ctx context.Context, g *store.Group, first *int, after *string) (*model.ExpenseConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListExpenses(ctx, g.ID, args)
	if err != nil {
		return nil, err
	}
	return expenseConnection(p), nil
}

func (r *Resolver) groupSettlements(ctx context.Context, g *store.Group, first *int, after *string) (*model.SettlementConnection, error) {
	args, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListSettlements(ctx, g.ID, args)
	if err != nil {
		return nil, err
	}
	return settlementConnection(p), nil
}

// orNotFound is err if there is one, else a NOT_FOUND error for what.
func orNotFound(err error, what string) error {
	if err != nil {
		return err
	}
	return notFound(what)
}
