package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// RestoreExpense brings back the deleted expense e (its tombstone, as read)
// by actor, within RestoreWindow of its deletion: in one transaction the
// tombstone goes, the expense returns to its place in every list with its
// participant records (carrying groupTitle), its effect returns to the
// balances, and the RESTORED revision and the activity event are written.
// It fails with ErrNotFound once the window has passed, with a
// VersionConflict if the tombstone changed since it was read, and with
// ErrConflict if a user the expense involves has left the group meanwhile.
func (s *Store) RestoreExpense(ctx context.Context, e Expense, groupTitle, actor string) (Expense, error) {
	now := s.stamp()
	switch {
	case e.DeletedAt == nil:
		return Expense{}, conflictf("the expense is not deleted")
	case !e.Restorable(now):
		return Expense{}, notFoundf("expense %s: deleted more than %d days ago", e.ID, int(RestoreWindow.Hours()/24))
	}
	delta, err := e.delta()
	if err != nil {
		return Expense{}, err
	}
	restored := e
	restored.Version, restored.DeletedAt, restored.DeletedBy, restored.format = e.Version+1, nil, "", formatCurrent
	put, err := s.putNew(restored.record(), "expense")
	if err != nil {
		return Expense{}, err
	}
	items := []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: tableKey(groupPK(e.GroupID), deletedExpenseSK(formatTime(e.CreatedAt), e.ID)),
			ConditionExpression:      aws.String(tombstoneRestorable),
			ExpressionAttributeNames: map[string]string{"#ttl": attrTTL},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":v":   number(int64(e.Version)),
				":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)},
			},
		}},
		s.balancesUpdate(e.GroupID, delta),
		put,
	}
	for _, p := range restored.participantRecords(groupTitle) {
		put, err := s.putNew(p, "expense")
		if err != nil {
			return Expense{}, err
		}
		items = append(items, put)
	}
	rev := revisionOf(RevisionRestored, &e, &restored, actor, now)
	if items, err = s.appendRevisions(items, &e, rev); err != nil {
		return Expense{}, err
	}
	items = append(items, s.spendingUpdates(e.GroupID, nil, &restored)...)
	days, err := s.dayChanges(nil, &restored)
	if err != nil {
		return Expense{}, err
	}
	items = append(items, days...)
	ev := expenseEvent(EventExpenseRestored, &restored, actor, now, nil)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.changeBalances(e.InvolvedUsers(), e.Amount.Currency(), s.maxCurrencies)
		return items, nil
	})
	switch {
	case condFailedAt(err, 1):
		return Expense{}, conflictf("the expense was restored, or purged, meanwhile")
	case condFailedAt(err, 0):
		return Expense{}, s.ledgerRefusal(err, 0, e.Amount.Currency(),
			conflictf("a member this expense involves has left the group, so it cannot be restored"))
	case err != nil:
		return Expense{}, fmt.Errorf("restore expense: %w", err)
	}
	return restored, nil
}

// tombstoneRestorable: the tombstone is there, at the version read, and not
// expired (TTL deletion lags by up to days).
var tombstoneRestorable = condItemExists + " AND " + attrVersion + " = :v AND " + "#ttl > :now"
