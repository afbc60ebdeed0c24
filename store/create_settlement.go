package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
)

// CreateSettlement records a payment between two members, on condition that
// both are members of the group. The store assigns id and creation time, and
// the completion time when it is created already completed, in which case
// it moves the balances in the same transaction. An idempotency key works as
// for CreateExpense, claimed by the member who records it (CreatedBy,
// by default the payer).
func (s *Store) CreateSettlement(ctx context.Context, st Settlement, idempotencyKey string) (Settlement, error) {
	st.ID = s.newID()
	st.CreatedAt = s.stamp()
	if st.CreatedBy == "" {
		st.CreatedBy = st.FromUserID
	}
	if st.Status == SettlementCompleted {
		st.CompletedAt, st.ConfirmedBy = &st.CreatedAt, st.CreatedBy
	}
	put, err := s.putNew(st.record(), "settlement")
	if err != nil {
		return Settlement{}, err
	}
	items := []types.TransactWriteItem{put}
	completed := st.Status == SettlementCompleted
	if completed {
		items = append(items, s.balancesUpdates(st.GroupID, st.deltas())...)
	}
	idem := -1
	if idempotencyKey != "" {
		put, err := s.idempotencyPut(st.CreatedBy, idempotencyKey, idempotencyRecord{
			Kind: "settlement", ResourceID: st.ID, GroupID: st.GroupID, CreatedAt: formatTime(st.CreatedAt), Fingerprint: st.fingerprint(),
		})
		if err != nil {
			return Settlement{}, err
		}
		items = append(items, put)
		idem = len(items) // its index in the transaction, after the ledger
	}
	ev := settlementEvent(EventSettlementCreated, &st, st.CreatedBy, st.CreatedAt, SettlementChanges(nil, &st))
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		parties := []string{st.FromUserID, st.ToUserID}
		if completed {
			l.changeBalancesIn(parties, st.SettledCurrencies(), s.maxCurrencies)
		} else {
			l.requireMembers(parties)
		}
		return items, nil
	})
	switch {
	case idem >= 0 && condFailedAt(err, idem):
		return s.replaySettlement(ctx, st, idempotencyKey)
	case condFailedAt(err, 0):
		return Settlement{}, s.ledgerRefusalIn(err, 0, st.SettledCurrencies(),
			notFoundf("group %s or one of the two members", st.GroupID))
	case err != nil:
		return Settlement{}, fmt.Errorf("create settlement: %w", err)
	}
	return st, nil
}

// replaySettlement returns the settlement an earlier request with the same key made.
func (s *Store) replaySettlement(ctx context.Context, st Settlement, key string) (Settlement, error) {
	rec, created, err := s.claimedBy(ctx, st.CreatedBy, key, "settlement", st.fingerprint())
	if err != nil {
		return Settlement{}, err
	}
	found, err := s.GetSettlements(ctx, []SettlementRef{{ID: rec.ResourceID, GroupID: rec.GroupID, CreatedAt: created}})
	if err != nil {
		return Settlement{}, err
	}
	if found[0] == nil {
		return Settlement{}, conflictf("this request was already made, and the settlement it created is gone")
	}
	return *found[0], nil
}

// fingerprint identifies what the settlement says, apart from its id, time and later changes.
func (st *Settlement) fingerprint() string {
	return fingerprint(st.GroupID, st.FromUserID, st.ToUserID, st.Amount.String(), st.Amount.Currency().Code(), st.TxHash, string(st.Status), settledPart(st.Settles), partsPart(st.Parts))
}

// deltas are what completing the settlement does to the group's balances,
// one per currency it settles (a negative part pays the other way).
func (st *Settlement) deltas() []ledger.Delta {
	parts := st.SettledParts()
	out := make([]ledger.Delta, len(parts))
	for i, a := range parts {
		if a.Sign() < 0 {
			out[i] = ledger.SettlementDelta(a.Currency(), st.ToUserID, st.FromUserID, a.Neg())
		} else {
			out[i] = ledger.SettlementDelta(a.Currency(), st.FromUserID, st.ToUserID, a)
		}
	}
	return out
}
