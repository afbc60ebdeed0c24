package store

import (
	"context"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The migration's step for expense days (expense_day.go): a group from
// before day items gets one for every live expense, and then its METADATA
// is marked daysKept, after which a date-filtered list reads its days.

// dayAttempts bounds how often one run looks at a group again when the
// group was written to while its days were being written.
const dayAttempts = 3

// daysPerTransaction is how many day items one transaction writes: each
// goes with a check of its expense's version.
const daysPerTransaction = maxTransactItems / 2

// days writes the group's missing day items and marks it daysKept. Each day
// item is written on condition that its expense is still at the version
// read (an edit meanwhile may have moved it to another day), and the mark
// on condition that no event was added to the group since its expenses were
// read (no expense appeared or changed unseen). When either fails the group
// is read again; a group still busy after dayAttempts is left to the next
// run.
func (m *migration) days(ctx context.Context, item map[string]types.AttributeValue) (int, error) {
	if kept, _ := item[attrDaysKept].(*types.AttributeValueMemberBOOL); kept != nil && kept.Value {
		return 0, nil
	}
	s, groupID := m.s, itemGroupID(item)
	pk := groupPK(groupID)
	wrote := 0
	for range dayAttempts {
		ledger, _, err := s.getItem(ctx, pk, skLedger, true)
		if err != nil {
			return wrote, err
		}
		all := func(prefix string) ([]map[string]types.AttributeValue, error) {
			return s.collect(ctx, listQuery{list: "days:" + groupID, keyCond: tablePrefixCond,
				values: prefixValues(pk, prefix), forward: true, consistent: true}, nil, math.MaxInt32)
		}
		live, err := all(prefixTx)
		if err != nil {
			return wrote, err
		}
		have, err := all(prefixDay)
		if err != nil {
			return wrote, err
		}
		kept := make(map[string]bool, len(have))
		for _, it := range have {
			kept[keyAttr(it, attrSK)] = true
		}
		expenses, err := decodeAll(live, (*expenseRecord).expense)
		if err != nil {
			return wrote, err
		}
		var missing []Expense
		for _, e := range expenses {
			if !kept[e.daySK()] {
				missing = append(missing, e)
			}
		}
		if m.opts.DryRun {
			return len(missing) + 1, nil
		}
		n, err := m.writeDays(ctx, missing)
		wrote += n
		if IsCondCheckFailed(err) {
			continue // an expense changed meanwhile: look again
		}
		if err != nil {
			return wrote, err
		}
		err = m.markDaysKept(ctx, groupID, ledger)
		if IsCondCheckFailed(err) {
			continue
		}
		if err != nil {
			return wrote, err
		}
		return wrote + 1, nil
	}
	return wrote, nil
}

// writeDays writes the day items of expenses, each with a check that its
// expense is still at the version read, daysPerTransaction at a time.
func (m *migration) writeDays(ctx context.Context, expenses []Expense) (int, error) {
	s, wrote := m.s, 0
	for len(expenses) > 0 {
		batch := expenses[:min(len(expenses), daysPerTransaction)]
		items := make([]types.TransactWriteItem, 0, 2*len(batch))
		for _, e := range batch {
			cond, values := expenseVersionCond(e.Version)
			av, err := attributevalue.MarshalMap(e.dayRecord())
			if err != nil {
				return wrote, err
			}
			items = append(items,
				types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
					TableName: &s.table, Key: tableKey(groupPK(e.GroupID), expenseSK(formatTime(e.CreatedAt), e.ID)),
					ConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
				}},
				types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: av}})
		}
		if err := s.transactWrite(ctx, items); err != nil {
			return wrote, err
		}
		wrote, expenses = wrote+len(batch), expenses[len(batch):]
	}
	return wrote, nil
}

// markDaysKept marks the group daysKept on condition that its ledger's
// chain is where it was (ledger, as read before the expenses were; nil
// when the group has no ledger, which only a dry run meets).
func (m *migration) markDaysKept(ctx context.Context, groupID string, ledger map[string]types.AttributeValue) error {
	s := m.s
	check := &types.ConditionCheck{TableName: &s.table, Key: tableKey(groupPK(groupID), skLedger)}
	if events, ok := ledger[attrEvents]; ok {
		check.ConditionExpression = aws.String(attrEvents + " = :e")
		check.ExpressionAttributeValues = map[string]types.AttributeValue{":e": events}
	} else {
		check.ConditionExpression = aws.String(attrNotExists(attrEvents))
	}
	return s.transactWrite(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
			UpdateExpression:          aws.String("SET " + attrDaysKept + " = :t"),
			ConditionExpression:       aws.String(condItemExists),
			ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}},
		}},
		{ConditionCheck: check},
	})
}
