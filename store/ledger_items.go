package store

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// The transaction items on a group's ledger and balances that every write
// involving members or money shares: creating and deleting expenses,
// creating and completing settlements.

// membersCheck is a condition on the group's ledger: the group exists and
// every listed user is currently a member.
func (s *Store) membersCheck(groupID string, users []string) *types.ConditionCheck {
	cond := []string{condItemExists}
	values := make(map[string]types.AttributeValue, len(users))
	for i, u := range users {
		ph := ":m" + strconv.Itoa(i)
		cond = append(cond, attrContains(attrMemberIDs, ph))
		values[ph] = str(u)
	}
	return &types.ConditionCheck{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(groupID), skLedger),
		ConditionExpression:       aws.String(strings.Join(cond, " AND ")),
		ExpressionAttributeValues: values,
	}
}

// The parts of ledgerUpdate's expressions that never change.
var (
	ledgerBump = "ADD " + attrVersion + " :one, " + attrCurrencies + " :cur"
	// ledgerCurrencyRoom: the currency is one the group holds, or there is room for it.
	ledgerCurrencyRoom = " AND (" + attrNotExists(attrCurrencies) + " OR " + attrContains(attrCurrencies, ":code") +
		" OR size(" + attrCurrencies + ") < :maxCurrencies)"
)

// ledgerUpdate is the transaction item on the group's ledger for a write
// that changes balances: it requires the group and every listed user to be
// current members and the currency to be one the group holds balances in,
// or room for one more (MaxGroupCurrencies); it records the currency and
// bumps the version. When its condition fails, ledgerRefusal tells why.
func (s *Store) ledgerUpdate(groupID string, members []string, cur money.Currency) types.TransactWriteItem {
	check := s.membersCheck(groupID, members)
	values := check.ExpressionAttributeValues
	values[":one"] = &types.AttributeValueMemberN{Value: "1"}
	values[":cur"] = &types.AttributeValueMemberSS{Value: []string{cur.Code()}}
	values[":code"] = str(cur.Code())
	values[":maxCurrencies"] = &types.AttributeValueMemberN{Value: strconv.Itoa(s.maxCurrencies)}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           check.TableName,
		Key:                                 check.Key,
		UpdateExpression:                    aws.String(ledgerBump),
		ConditionExpression:                 aws.String(*check.ConditionExpression + ledgerCurrencyRoom),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// ledgerRefusal explains a failed ledgerUpdate at index i of a cancelled
// transaction: ErrTooManyCurrencies when the group and members were fine but
// the currency would be one too many, otherwise missing (a group or member
// is gone, which the caller knows how to say).
func (s *Store) ledgerRefusal(err error, i int, cur money.Currency, missing error) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) || tce.CancellationReasons[i].Item == nil {
		return missing
	}
	var rec ledgerRecord
	if attributevalue.UnmarshalMap(tce.CancellationReasons[i].Item, &rec) != nil {
		return missing
	}
	if len(rec.Currencies) >= s.maxCurrencies && !slices.Contains(rec.Currencies, cur.Code()) {
		return fmt.Errorf("%w: the group already holds balances in %d currencies (%s), the most one group may; use one of them",
			ErrTooManyCurrencies, len(rec.Currencies), strings.Join(rec.Currencies, ", "))
	}
	return missing
}

// balancesUpdate is the transaction item that adds a delta to the group's
// balances in the delta's currency.
func (s *Store) balancesUpdate(groupID string, d ledger.Delta) types.TransactWriteItem {
	names := map[string]string{"#cur": attrCurrency}
	values := map[string]types.AttributeValue{":cur": str(d.Currency.Code())}
	var adds []string
	add := func(attr string, a money.Amount) {
		if a.IsZero() {
			return
		}
		n := strconv.Itoa(len(adds))
		names["#a"+n] = attr
		values[":a"+n] = &types.AttributeValueMemberN{Value: a.String()}
		adds = append(adds, "#a"+n+" :a"+n)
	}
	for _, u := range sortedKeys(d.Users) {
		b := d.Users[u]
		add(attrPaid+u, b.Paid)
		add(attrOwed+u, b.Owed)
		add(attrSent+u, b.Sent)
		add(attrReceived+u, b.Received)
	}
	pairs := make([]ledger.Pair, 0, len(d.Pairs))
	for p := range d.Pairs {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(x, y ledger.Pair) int { return strings.Compare(x.A+":"+x.B, y.A+":"+y.B) })
	for _, p := range pairs {
		add(attrDebt+p.A+":"+p.B, d.Pairs[p])
	}
	expr := "SET #cur = :cur"
	if len(adds) > 0 {
		expr += " ADD " + strings.Join(adds, ", ")
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(groupID), balancesSK(d.Currency.Code())),
		UpdateExpression:          aws.String(expr),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
