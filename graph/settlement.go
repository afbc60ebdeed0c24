package graph

import (
	"context"
	"errors"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

func (r *Resolver) createSettlement(ctx context.Context, in model.CreateSettlementInput) (*store.Settlement, error) {
	g, err := visibleGroup(ctx, in.GroupID)
	if err != nil || g == nil {
		return nil, orNotFound(err, "group")
	}
	me := viewerID(ctx)
	from, to := me, me
	if in.FromUserID != nil {
		from = *in.FromUserID
	}
	if in.ToUserID != nil {
		to = *in.ToUserID
	}
	switch {
	case from == to && from == me:
		return nil, badInput("input.toUserId", "you cannot settle with yourself: give toUserId (a payment you make) or fromUserId (one you received)")
	case from == to:
		return nil, badInput("input.toUserId", "the payer and the recipient must be different members")
	case from != me && to != me:
		return nil, forbidden("you can record only a settlement you pay or receive")
	}
	cur, err := currency("input.currency", in.Currency, g.Currency)
	if err != nil {
		return nil, err
	}
	amount, err := positiveAmount("input.amount", in.Amount, cur)
	if err != nil {
		return nil, err
	}
	hash, err := txHash("input.txHash", in.TxHash)
	if err != nil {
		return nil, err
	}
	key, err := idempotencyKey("input.idempotencyKey", in.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	status := store.SettlementPending
	if in.Status != nil {
		status = *in.Status
	}
	switch status {
	case store.SettlementPending:
	case store.SettlementFailed:
		return nil, badInput("input.status", "a new settlement is PENDING, SENT or COMPLETED")
	default:
		if err := mayMove(g, from, to, me, store.SettlementPending, status); err != nil {
			return nil, err
		}
	}
	l := loaders.For(ctx)
	fromLoad := l.Members.Load(ctx, store.MemberKey{GroupID: g.ID, UserID: from})
	toLoad := l.Members.Load(ctx, store.MemberKey{GroupID: g.ID, UserID: to})
	parties := []struct {
		field, id string
		load      func() (*store.Member, error)
	}{{"input.fromUserId", from, fromLoad}, {"input.toUserId", to, toLoad}}
	members := make([]*store.Member, 2)
	for i, p := range parties {
		m, err := p.load()
		if err != nil {
			return nil, err
		}
		if !m.Active() || !telegramIDPattern.MatchString(p.id) {
			return nil, badInput(p.field, "user %s is not a member of this group", p.id)
		}
		members[i] = m
	}
	st := store.Settlement{
		GroupID: g.ID, FromUserID: from, FromUserName: members[0].Name, ToUserID: to, ToUserName: members[1].Name,
		Amount: amount, Status: status, CreatedBy: me,
	}
	if hash != nil {
		st.TxHash = *hash
	}
	created, err := r.Store.CreateSettlement(ctx, st, key)
	if errors.Is(err, store.ErrTooManyCurrencies) {
		return nil, currencyLimit(err)
	}
	if err != nil {
		return nil, err
	}
	return &created, nil
}

// mayMove checks that the viewer (me) may take a settlement from one status
// to another: the payer marks it SENT, the recipient completes it (the
// payer too where the group allows it), either marks it FAILED. The status
// order itself (store.CanBecome) is checked first: a final settlement is a
// CONFLICT whoever asks.
func mayMove(g *store.Group, from, to, me string, was, status store.SettlementStatus) error {
	if !store.CanBecome(was, status) {
		return conflict("a " + enumName(was) + " settlement cannot become " + enumName(status) +
			": PENDING becomes SENT, and PENDING or SENT becomes COMPLETED or FAILED")
	}
	switch {
	case status == store.SettlementSent && me != from:
		return forbidden("only the payer marks a settlement SENT")
	case status == store.SettlementCompleted && me != to && g.SettlementConfirmation != store.ConfirmByEitherParty:
		return forbidden("only the recipient confirms a payment: mark it SENT, and the recipient marks it COMPLETED")
	}
	return nil
}

func (r *Resolver) updateSettlement(ctx context.Context, id string, in model.UpdateSettlementInput) (*store.Settlement, error) {
	st, err := r.settlementByID(ctx, id)
	if err != nil || st == nil {
		return nil, orNotFound(err, "settlement")
	}
	me := viewerID(ctx)
	if me != st.FromUserID && me != st.ToUserID {
		return nil, forbidden("only the two members of a settlement can change it")
	}
	if in.Status == nil && in.TxHash == nil {
		return nil, badInput("input", "give a status or a txHash to change")
	}
	hash, err := txHash("input.txHash", in.TxHash)
	if err != nil {
		return nil, err
	}
	if st.Status.Final() {
		return nil, conflict("the settlement is " + enumName(st.Status) + ": neither its status nor its txHash can change")
	}
	if in.Status != nil {
		g, err := group(ctx, st.GroupID)
		if err != nil {
			return nil, err
		}
		if err := mayMove(g, st.FromUserID, st.ToUserID, me, st.Status, *in.Status); err != nil {
			return nil, err
		}
	}
	updated, err := r.Store.UpdateSettlement(ctx, *st, store.SettlementChange{Status: in.Status, TxHash: hash})
	if err != nil {
		return nil, err
	}
	loaders.For(ctx).Settlements.Clear(ctx, store.SettlementRef{ID: id})
	return &updated, nil
}

// settlementByID is the settlement with this id if the viewer may see it.
func (r *Resolver) settlementByID(ctx context.Context, id string) (*store.Settlement, error) {
	if !uuidPattern.MatchString(id) {
		return nil, nil
	}
	return visibleSettlement(ctx, store.SettlementRef{ID: id})
}

func settlementConnection(p store.Page[store.Settlement]) *model.SettlementConnection {
	edges, nodes, info := connection(p, func(c string, s *store.Settlement) model.SettlementEdge {
		return model.SettlementEdge{Cursor: c, Node: s}
	})
	return &model.SettlementConnection{Edges: edges, Nodes: nodes, PageInfo: info}
}
