package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
)

// UpdateExpense replaces the live expense old (as read, at its version)
// with next by editor: next keeps old's id, group, creation time and
// recorder, and becomes the next version. In one transaction the expense is
// rewritten on condition that it is still at old's version (a
// VersionConflict otherwise), old's effect on the balances comes off and
// next's goes on, participant records are written and removed to match
// (carrying groupTitle), and the UPDATED revision and the activity event are
// written. Every user whose balance the edit changes, and every user it
// adds, must be a current member. An edit that changes nothing returns old
// as it is. An edit that would write more items than one transaction holds
// fails with ErrTooManyItems.
func (s *Store) UpdateExpense(ctx context.Context, old, next Expense, groupTitle, editor string) (Expense, error) {
	return s.updateExpense(ctx, old, next, groupTitle, editor)
}

// updateExpense is UpdateExpense, with extra changes for its revision and
// event beyond what the expense's fields show.
func (s *Store) updateExpense(ctx context.Context, old, next Expense, groupTitle, editor string, extra ...Change) (Expense, error) {
	// An edit of its fields keeps its receipts: they change only by
	// AddReceipt and RemoveReceipt.
	next.Receipts = old.Receipts
	return s.editExpense(ctx, old, next, groupTitle, editor, expenseEdit{event: EventExpenseUpdated, extra: extra})
}

// expenseEdit is what kind of edit editExpense writes: its event's type,
// changes for its revision and event beyond what the expense's fields show,
// and more writes for the same transaction (after the expense's own).
type expenseEdit struct {
	event EventType
	extra []Change
	items []types.TransactWriteItem
}

// errEditItemRefused says that the condition of expenseEdit.items[i]
// failed.
type errEditItemRefused struct{ i int }

func (e errEditItemRefused) Error() string {
	return fmt.Sprintf("the condition of the edit's item %d failed", e.i)
}

// editExpense writes old's next version as how says (updateExpense).
func (s *Store) editExpense(ctx context.Context, old, next Expense, groupTitle, editor string, how expenseEdit) (Expense, error) {
	if old.DeletedAt != nil {
		return Expense{}, conflictf("the expense is deleted; restore it before editing it")
	}
	next.ID, next.GroupID, next.CreatedAt, next.CreatedBy = old.ID, old.GroupID, old.CreatedAt, old.CreatedBy
	next.Version, next.DeletedAt, next.DeletedBy = old.Version+1, nil, ""
	next.SeriesID = old.SeriesID // an edited occurrence stays its series
	if next.SpentAt.IsZero() {
		next.SpentAt = old.SpentAt
	}
	spentOn, err := spentOnFor(&old, &next)
	if err != nil {
		return Expense{}, err
	}
	next.SpentOn = spentOn
	next.Splits, next.Payers = slices.Clone(next.Splits), slices.Clone(next.Payers)
	next.own()
	now := s.stamp()
	rev := revisionOf(RevisionUpdated, &old, &next, editor, now)
	rev.raw = append(rev.raw, how.extra...)
	rev.Changes = renderChanges(changeRecords(rev.raw), nil)
	if len(rev.Changes) == 0 {
		return old, nil
	}
	if n := len(next.InvolvedUsers()); n > MaxExpenseParticipants {
		return Expense{}, fmt.Errorf("%w: %d participants, the limit is %d", ErrTooManyItems, n, MaxExpenseParticipants)
	}
	balances, mustBeMembers, err := editBalances(&old, &next)
	if err != nil {
		return Expense{}, err
	}
	rec, err := attributevalue.MarshalMap(next.record())
	if err != nil {
		return Expense{}, fmt.Errorf("encode expense: %w", err)
	}
	items := []types.TransactWriteItem{s.expenseAtVersion(old, &types.TransactWriteItem{Put: &types.Put{Item: rec}})}
	for _, d := range balances {
		items = append(items, s.balancesUpdate(old.GroupID, d))
	}
	parts, err := s.participantChanges(&old, &next, groupTitle)
	if err != nil {
		return Expense{}, err
	}
	items = append(items, parts...)
	if items, err = s.appendRevisions(items, &old, rev); err != nil {
		return Expense{}, err
	}
	items = append(items, s.spendingUpdates(old.GroupID, &old, &next)...)
	days, err := s.dayChanges(&old, &next)
	if err != nil {
		return Expense{}, err
	}
	items = append(items, days...)
	first := len(items) + 1 // how.items' place in the transaction, after the ledger
	items = append(items, how.items...)
	if n := len(items) + 2; n > maxTransactItems { // with the ledger and the event
		return Expense{}, fmt.Errorf("%w: this edit would write %d items (the expense, its balances, %d participant records and its history), and one transaction holds at most %d; change fewer members at once",
			ErrTooManyItems, n, len(parts), maxTransactItems)
	}
	ev := expenseEvent(how.event, &next, editor, now, rev.raw)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		if len(balances) > 0 {
			l.changeBalances(mustBeMembers, next.Amount.Currency(), s.maxCurrencies)
		} else {
			l.requireMembers(mustBeMembers)
			l.bumpVersion()
		}
		return items, nil
	})
	for i := range how.items {
		if condFailedAt(err, first+i) {
			return Expense{}, errEditItemRefused{i}
		}
	}
	switch {
	case condFailedAt(err, 1):
		return Expense{}, s.versionConflict(err, 1)
	case condFailedAt(err, 0):
		return Expense{}, s.ledgerRefusal(err, 0, next.Amount.Currency(),
			conflictf("a member whose balance this edit changes is not (or no longer) in the group"))
	case err != nil:
		return Expense{}, fmt.Errorf("update expense: %w", err)
	}
	return next, nil
}

// editBalances is what an edit does to the balances: in one currency, the
// old effect negated plus the new one (nothing when they cancel out); across
// currencies, the old one off and the new one on. mustBeMembers are the
// users whose balance changes and the users the edit adds.
func editBalances(old, next *Expense) (deltas []ledger.Delta, mustBeMembers []string, err error) {
	was, err := old.delta()
	if err != nil {
		return nil, nil, err
	}
	now, err := next.delta()
	if err != nil {
		return nil, nil, err
	}
	affected := map[string]bool{}
	if was.Currency == now.Currency {
		d, err := was.Negate().Plus(now)
		if err != nil {
			return nil, nil, err
		}
		if !d.IsZero() {
			deltas = []ledger.Delta{d}
		}
		for _, u := range d.Affected() {
			affected[u] = true
		}
	} else {
		deltas = []ledger.Delta{was.Negate(), now}
		for _, u := range append(old.InvolvedUsers(), next.InvolvedUsers()...) {
			affected[u] = true
		}
	}
	for _, u := range next.InvolvedUsers() {
		if !slices.Contains(old.InvolvedUsers(), u) {
			affected[u] = true
		}
	}
	return deltas, sortedKeys(affected), nil
}

// participantChanges writes next's participant records, unless one is
// exactly as before, and removes old's records that next no longer has.
func (s *Store) participantChanges(old, next *Expense, groupTitle string) ([]types.TransactWriteItem, error) {
	wanted := map[string]bool{}
	before := map[string]participantRecord{}
	for _, p := range old.participantRecords(groupTitle) {
		before[p.SK] = p
	}
	var items []types.TransactWriteItem
	for _, p := range next.participantRecords(groupTitle) {
		wanted[p.SK] = true
		if was, ok := before[p.SK]; ok && was == p {
			continue
		}
		av, err := attributevalue.MarshalMap(p)
		if err != nil {
			return nil, fmt.Errorf("encode participant: %w", err)
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: av}})
	}
	for _, sk := range sortedKeys(before) {
		if !wanted[sk] {
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: tableKey(before[sk].PK, sk)}})
		}
	}
	return items, nil
}
