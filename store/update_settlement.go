package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SettlementChange is an update to a settlement; nil fields stay as they are.
type SettlementChange struct {
	Status *SettlementStatus
	TxHash *string
}

// CanBecome reports whether a settlement may move from status from to status
// to: a pending one may be marked sent, a pending or sent one completes or
// fails, and that is final. Who may make each move is the caller's rule.
func CanBecome(from, to SettlementStatus) bool {
	switch to {
	case SettlementSent:
		return from == SettlementPending
	case SettlementCompleted, SettlementFailed:
		return from == SettlementPending || from == SettlementSent
	}
	return false
}

// settlementUnchanged: the settlement is still there, in the status it was read in.
var settlementUnchanged = condItemExists + " AND #status = :current"

// UpdateSettlement applies change to st, on condition that the stored
// settlement is still in the status st has, so that of two concurrent changes
// only one succeeds; the other gets ErrConflict. A completed or failed
// settlement's transaction hash cannot change. A status change must be
// allowed by CanBecome. Completing it stamps completedAt and moves the
// balances of both members in the same transaction, so money moves exactly
// once; it fails with ErrConflict if either has left the group.
//
// actor is the member making the change, whom the group's activity event
// names, and who becomes the settlement's ConfirmedBy when it completes. An
// actor who is neither of the two may only complete a settlement to a
// placeholder, on its behalf (a placeholder cannot sign in): the same
// transaction then requires that the settlement is still to the placeholder,
// that nobody has begun to claim it, and that the actor is a current member,
// so that a claim racing the confirmation leaves it to the claimer.
func (s *Store) UpdateSettlement(ctx context.Context, st Settlement, change SettlementChange, actor string) (Settlement, error) {
	return s.updateSettlement(ctx, st, change, actor, settlementExtra{})
}

// settlementExtra is more that a change to a settlement writes in the same
// transaction (the on-chain verification's state and its payment record):
// more SET and REMOVE clauses and a condition on the settlement item, and
// items after the others, whose refused condition is errExtraRefused.
type settlementExtra struct {
	set    []string
	remove []string
	cond   string
	values map[string]types.AttributeValue
	items  []types.TransactWriteItem
	apply  func(*Settlement)
}

// errExtraRefused: the condition of one of a settlementExtra's items failed.
var errExtraRefused = errors.New("a condition of the change's extra items failed")

func (s *Store) updateSettlement(ctx context.Context, st Settlement, change SettlementChange, actor string, x settlementExtra) (Settlement, error) {
	onBehalf := actor != st.FromUserID && actor != st.ToUserID
	if onBehalf && (change.Status == nil || *change.Status != SettlementCompleted || change.TxHash != nil || !IsPlaceholderID(st.ToUserID)) {
		return Settlement{}, fmt.Errorf("update settlement %s: %s is neither of its members, and may only complete a payment to a placeholder", st.ID, actor)
	}
	var sets []string
	values := map[string]types.AttributeValue{":current": str(string(st.Status))}
	cond := settlementUnchanged
	updated := st
	if change.Status != nil {
		if !CanBecome(st.Status, *change.Status) {
			return Settlement{}, conflictf("a %s settlement cannot become %s", st.Status, *change.Status)
		}
		updated.Status = *change.Status
		sets = append(sets, "#status = :status")
		values[":status"] = str(string(*change.Status))
		if *change.Status == SettlementCompleted {
			now := s.stamp()
			updated.CompletedAt, updated.ConfirmedBy = &now, actor
			sets = append(sets, attrCompletedAt+" = :completedAt", attrConfirmedBy+" = :confirmedBy")
			values[":completedAt"], values[":confirmedBy"] = str(formatTime(now)), str(actor)
		}
	}
	if change.TxHash != nil {
		if st.Status.Final() {
			return Settlement{}, conflictf("the transaction hash of a %s settlement cannot change", st.Status)
		}
		updated.TxHash = *change.TxHash
		sets = append(sets, attrTxHash+" = :txHash")
		values[":txHash"] = str(*change.TxHash)
	}
	if len(sets) == 0 && len(x.set) == 0 {
		return st, nil
	}
	sets = append(sets, x.set...)
	for k, v := range x.values {
		values[k] = v
	}
	if x.cond != "" {
		cond += " AND " + x.cond
	}
	if x.apply != nil {
		x.apply(&updated)
	}
	update := "SET " + strings.Join(sets, ", ")
	if len(x.remove) > 0 {
		update += " REMOVE " + strings.Join(x.remove, ", ")
	}
	if onBehalf {
		// Still to the placeholder: a claim that moved it meanwhile made the
		// real user its recipient.
		cond += " AND " + attrToUserID + " = :to"
		values[":to"] = str(st.ToUserID)
	}
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(st.GroupID), settlementSK(formatTime(st.CreatedAt), st.ID)),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#status": attrStatus},
		ExpressionAttributeValues: values,
	}}}
	completes := updated.Status == SettlementCompleted && st.Status != SettlementCompleted
	if completes {
		items = append(items, s.balancesUpdates(st.GroupID, st.deltas())...)
	}
	placeholderAt := -1 // the index of the placeholder's check, after the ledger
	if onBehalf {
		// Nobody has begun to claim the placeholder: from then on, only the
		// user who claims it confirms (once the claim has made them the recipient).
		items = append(items, s.memberCheck(st.GroupID, st.ToUserID, placeholderUnclaimed))
		placeholderAt = len(items)
	}
	extraFrom := len(items) + 1 // after the ledger and the items so far
	items = append(items, x.items...)
	ev := settlementEvent(settlementEventType(updated.Status, st.Status), &updated, actor, s.stamp(), SettlementChanges(&st, &updated))
	err := s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		if completes {
			l.changeBalancesIn([]string{st.FromUserID, st.ToUserID}, st.SettledCurrencies(), s.maxCurrencies)
		}
		if onBehalf {
			l.requireMembers([]string{actor})
		}
		return items, nil
	})
	for i := range x.items {
		if condFailedAt(err, extraFrom+i) {
			return Settlement{}, errExtraRefused
		}
	}
	switch {
	case onBehalf && (condFailedAt(err, placeholderAt) || condFailedAt(err, 1)):
		return Settlement{}, conflictf("the settlement changed meanwhile, or its recipient has joined and claimed the placeholder: only they confirm it now")
	case condFailedAt(err, 1):
		return Settlement{}, conflictf("the settlement changed meanwhile; it is no longer %s", st.Status)
	case condFailedAt(err, 0) && completes:
		return Settlement{}, s.ledgerRefusalIn(err, 0, st.SettledCurrencies(),
			conflictf("one of the two members has left the group, so the settlement cannot complete"))
	case condFailedAt(err, 0):
		return Settlement{}, notFoundf("group %s", st.GroupID)
	case err != nil:
		return Settlement{}, fmt.Errorf("update settlement: %w", err)
	}
	return updated, nil
}
