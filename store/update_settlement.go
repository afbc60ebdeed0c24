package store

import (
	"context"
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
// actor is the member making the change, whom the group's activity event names.
func (s *Store) UpdateSettlement(ctx context.Context, st Settlement, change SettlementChange, actor string) (Settlement, error) {
	var sets []string
	values := map[string]types.AttributeValue{":current": str(string(st.Status))}
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
			updated.CompletedAt = &now
			sets = append(sets, attrCompletedAt+" = :completedAt")
			values[":completedAt"] = str(formatTime(now))
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
	if len(sets) == 0 {
		return st, nil
	}
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(st.GroupID), settlementSK(formatTime(st.CreatedAt), st.ID)),
		UpdateExpression:          aws.String("SET " + strings.Join(sets, ", ")),
		ConditionExpression:       aws.String(settlementUnchanged),
		ExpressionAttributeNames:  map[string]string{"#status": attrStatus},
		ExpressionAttributeValues: values,
	}}}
	completes := updated.Status == SettlementCompleted && st.Status != SettlementCompleted
	if completes {
		items = append(items, s.balancesUpdate(st.GroupID, st.delta()))
	}
	ev := settlementEvent(settlementEventType(updated.Status, st.Status), &updated, actor, s.stamp(), SettlementChanges(&st, &updated))
	err := s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		if completes {
			l.changeBalances([]string{st.FromUserID, st.ToUserID}, st.Amount.Currency(), s.maxCurrencies)
		}
		return items, nil
	})
	switch {
	case condFailedAt(err, 1):
		return Settlement{}, conflictf("the settlement changed meanwhile; it is no longer %s", st.Status)
	case condFailedAt(err, 0) && completes:
		return Settlement{}, s.ledgerRefusal(err, 0, st.Amount.Currency(),
			conflictf("one of the two members has left the group, so the settlement cannot complete"))
	case condFailedAt(err, 0):
		return Settlement{}, notFoundf("group %s", st.GroupID)
	case err != nil:
		return Settlement{}, fmt.Errorf("update settlement: %w", err)
	}
	return updated, nil
}
