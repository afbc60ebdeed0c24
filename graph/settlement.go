package graph

import (
	"context"

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
	if in.ToUserID == me {
		return nil, badInput("input.toUserId", "you cannot settle with yourself")
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
	if status == store.SettlementFailed {
		return nil, badInput("input.status", "a new settlement is PENDING or COMPLETED")
	}
	l := loaders.For(ctx)
	from, to := l.Members.Load(ctx, store.MemberKey{GroupID: g.ID, UserID: me}), l.Members.Load(ctx, store.MemberKey{GroupID: g.ID, UserID: in.ToUserID})
	fromM, err := from()
	if err != nil {
		return nil, err
	}
	toM, err := to()
	if err != nil {
		return nil, err
	}
	if !toM.Active() || !telegramIDPattern.MatchString(in.ToUserID) {
		return nil, badInput("input.toUserId", "user %s is not a member of this group", in.ToUserID)
	}
	st := store.Settlement{
		GroupID: g.ID, FromUserID: me, FromUserName: fromM.Name, ToUserID: toM.UserID, ToUserName: toM.Name,
		Amount: amount, Status: status,
	}
	if hash != nil {
		st.TxHash = *hash
	}
	created, err := r.Store.CreateSettlement(ctx, st, key)
	if err != nil {
		return nil, err
	}
	return &created, nil
}

func (r *Resolver) updateSettlement(ctx context.Context, id string, in model.UpdateSettlementInput) (*store.Settlement, error) {
	st, err := r.settlementByID(ctx, id)
	if err != nil || st == nil {
		return nil, orNotFound(err, "settlement")
	}
	if me := viewerID(ctx); me != st.FromUserID && me != st.ToUserID {
		return nil, forbidden("only the two members of a settlement can change it")
	}
	if in.Status == nil && in.TxHash == nil {
		return nil, badInput("input", "give a status or a txHash to change")
	}
	hash, err := txHash("input.txHash", in.TxHash)
	if err != nil {
		return nil, err
	}
	if in.Status != nil && !store.CanBecome(st.Status, *in.Status) {
		return nil, conflict("a " + enumName(st.Status) + " settlement cannot become " + enumName(*in.Status) + ": only PENDING becomes COMPLETED or FAILED")
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
