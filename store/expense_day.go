package store

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Expense days (keys.go): one keys-only item per live expense,
// GROUP#<groupId> / DAY#<spentOn>#<createdAt>#<expenseId>, so that a range
// of spent days is one Query of exactly that range. Its key names the
// expense's own (TX#<createdAt>#<expenseId>), which a list then reads by
// key. It is written, moved and deleted in the same transaction as every
// write that creates, re-dates, deletes, restores or imports an expense, and
// a recurring expense's occurrences are created as expenses are: a day item
// exists exactly while its expense is live on that day.
//
// It carries nothing but its keys: every other filter is applied to the
// expense it names, so that no edit other than a change of day (a new
// amount, a placeholder claimed) has to touch it.

// attrDaysKept marks a group (on its METADATA) whose every live expense
// has its day item: groups created since day items exist, and groups
// `migrate` has completed. Until then a date-filtered list reads the
// group's expenses instead (find_expenses.go).
const attrDaysKept = "daysKept"

// dayRecord is the GROUP#<groupId> / DAY#<spentOn>#<createdAt>#<expenseId> item.
type dayRecord struct {
	itemKey
}

// daySK is the key of the expense's day item.
func (e *Expense) daySK() string {
	return expenseDaySK(e.spentOn(), formatTime(e.CreatedAt), e.ID)
}

// dayRecord is the expense's day item.
func (e *Expense) dayRecord() dayRecord {
	return dayRecord{itemKey{PK: groupPK(e.GroupID), SK: e.daySK()}}
}

// dayChanges are the transaction items that keep an expense's day item in
// step with a change from before to after (before nil: created or
// restored; after nil: deleted): a Put of the new day's, a Delete of the
// old day's, nothing when the day stays. The Put is unconditional: the item
// holds nothing but its key, so writing it again (after `migrate` wrote it)
// changes nothing.
func (s *Store) dayChanges(before, after *Expense) ([]types.TransactWriteItem, error) {
	var items []types.TransactWriteItem
	if before != nil && (after == nil || before.daySK() != after.daySK()) {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: &s.table, Key: tableKey(groupPK(before.GroupID), before.daySK()),
		}})
	}
	if after != nil && (before == nil || before.daySK() != after.daySK()) {
		av, err := attributevalue.MarshalMap(after.dayRecord())
		if err != nil {
			return nil, fmt.Errorf("encode expense day: %w", err)
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: av}})
	}
	return items, nil
}
