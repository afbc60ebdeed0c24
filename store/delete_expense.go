package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteExpense deletes the expense e (as read, at its version) by actor:
// in one transaction the expense moves to its tombstone, which is out of
// every list and is purged after RestoreWindow, its participant records go,
// its effect leaves the group's balances, and the DELETED revision and the
// group's activity event are written. It fails with a VersionConflict if the
// expense changed since it was read (or was deleted meanwhile), and with
// ErrConflict if a user it involves has left the group (their balance,
// settled to zero when they left, would change behind their back).
func (s *Store) DeleteExpense(ctx context.Context, e Expense, actor string) (Expense, error) {
	if e.DeletedAt != nil {
		return Expense{}, conflictf("the expense is already deleted")
	}
	delta, err := e.delta()
	if err != nil {
		return Expense{}, err
	}
	now := s.stamp()
	deleted := e
	deleted.Version, deleted.DeletedAt, deleted.DeletedBy, deleted.format = e.Version+1, &now, actor, formatCurrent
	tombstone, err := s.putNew(deleted.record(), "expense")
	if err != nil {
		return Expense{}, err
	}
	rev := revisionOf(RevisionDeleted, &e, &deleted, actor, now)
	items := []types.TransactWriteItem{
		s.expenseAtVersion(e, &types.TransactWriteItem{Delete: &types.Delete{}}),
		s.balancesUpdate(e.GroupID, delta.Negate()),
		tombstone,
	}
	for _, p := range e.participantRecords("") {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: tableKey(p.PK, p.SK)}})
	}
	if items, err = s.appendRevisions(items, &e, rev); err != nil {
		return Expense{}, err
	}
	items = append(items, s.spendingUpdates(e.GroupID, &e, nil)...)
	days, err := s.dayChanges(&e, nil)
	if err != nil {
		return Expense{}, err
	}
	items = append(items, days...)
	ev := expenseEvent(EventExpenseDeleted, &e, actor, now, nil)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.changeBalances(e.InvolvedUsers(), e.Amount.Currency(), s.maxCurrencies)
		return items, nil
	})
	switch {
	case condFailedAt(err, 1):
		return Expense{}, s.versionConflict(err, 1)
	case condFailedAt(err, 0):
		return Expense{}, conflictf("a member this expense involves has left the group, so it can no longer be deleted")
	case err != nil:
		return Expense{}, fmt.Errorf("delete expense: %w", err)
	}
	return deleted, nil
}

// expenseAtVersion fills in the write (a Delete, or a Put of the new
// version) of the live expense e's item, on condition that it is still at
// the version e was read at. An item written before versions has none: it
// is at version 1.
func (s *Store) expenseAtVersion(e Expense, w *types.TransactWriteItem) types.TransactWriteItem {
	cond, values := expenseVersionCond(e.Version)
	switch {
	case w.Delete != nil:
		w.Delete.TableName, w.Delete.Key = &s.table, tableKey(groupPK(e.GroupID), expenseSK(formatTime(e.CreatedAt), e.ID))
		w.Delete.ConditionExpression, w.Delete.ExpressionAttributeValues = aws.String(cond), values
		w.Delete.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	case w.Put != nil:
		w.Put.TableName = &s.table
		w.Put.ConditionExpression, w.Put.ExpressionAttributeValues = aws.String(cond), values
		w.Put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return *w
}

// expenseVersionCond is the condition, with its values, that an expense's
// item is there at version v (an item written before versions has none: it
// is at version 1).
func expenseVersionCond(v int) (string, map[string]types.AttributeValue) {
	cond := attrVersion + " = :v"
	if v == 1 {
		cond = "(" + attrNotExists(attrVersion) + " OR " + cond + ")"
	}
	return condItemExists + " AND " + cond, map[string]types.AttributeValue{":v": number(int64(v))}
}

// versionConflict explains the failed version condition at item i: the
// version the expense has now, or that it was deleted meanwhile.
func (s *Store) versionConflict(err error, i int) error {
	old := oldItemAt(err, i)
	if old == nil {
		return conflictf("the expense was deleted meanwhile")
	}
	es, decodeErr := decodeAll([]map[string]types.AttributeValue{old}, (*expenseRecord).expense)
	if decodeErr != nil {
		return decodeErr
	}
	return &VersionConflict{What: "expense", Current: es[0].Version}
}

// appendRevisions adds rev's item to a transaction, and, for an expense at
// version 1 whose first revision is not stored, that one too: an expense
// created without it (Expense.firstRevisionLater), or written before
// revisions were kept (written the same way by `migrate`, so writing it
// again changes nothing).
func (s *Store) appendRevisions(items []types.TransactWriteItem, e *Expense, rev Revision) ([]types.TransactWriteItem, error) {
	put, err := s.putNew(rev.record(), "revision")
	if err != nil {
		return nil, err
	}
	items = append(items, put)
	if e.Version != 1 || (e.format >= formatCurrent && !e.firstRevisionLater) {
		return items, nil
	}
	first, err := s.putNew(createdRevisionRecord(e), "revision")
	if err != nil {
		return nil, err
	}
	if !e.firstRevisionLater {
		first.Put.ConditionExpression = nil // identical when migrate wrote it already
	}
	return append(items, first), nil
}

// createdRevisionRecord is the item of the expense's first revision.
func createdRevisionRecord(e *Expense) revisionRecord {
	rev := createdRevision(e)
	return rev.record()
}
