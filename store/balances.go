package store

import (
	"context"
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

// A group's balances in one currency live on its GROUP#<id> /
// BALANCES#<currency> item, one Number attribute per amount, so that every
// write changes them with ADD in the same transaction as the write itself
// and reading them never reads expenses:
//
//	p:<userId>           paid for others in expenses
//	o:<userId>           owed: what others paid for them
//	s:<userId>           sent in completed settlements
//	r:<userId>           received in completed settlements
//	d:<userA>:<userB>    what A owes B (A < B; negative: B owes A)
const (
	attrPaid     = "p:"
	attrOwed     = "o:"
	attrSent     = "s:"
	attrReceived = "r:"
	attrDebt     = "d:"
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
		TableName:        check.TableName,
		Key:              check.Key,
		UpdateExpression: aws.String("ADD version :one, currencies :cur"),
		ConditionExpression: aws.String(*check.ConditionExpression +
			" AND (attribute_not_exists(currencies) OR contains(currencies, :code) OR size(currencies) < :maxCurrencies)"),
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
	names := map[string]string{"#cur": "currency"}
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

// GroupBalances is a group's kept balances: one book per currency it uses.
type GroupBalances struct {
	GroupID   string
	Version   int64    // the ledger's version when read
	MemberIDs []string // current members, sorted
	Books     []*ledger.Book
}

// Book is the group's book in the currency, or an empty one.
func (g *GroupBalances) Book(cur money.Currency) *ledger.Book {
	for _, b := range g.Books {
		if b.Currency == cur {
			return b
		}
	}
	return ledger.NewBook(cur)
}

// GetBalances reads the balances of many groups in two rounds of
// BatchGetItem (ledgers, then their currencies' books), whatever the number
// of expenses. The result is aligned with groupIDs; a missing group is nil.
func (s *Store) GetBalances(ctx context.Context, groupIDs []string) ([]*GroupBalances, error) {
	return s.getBalances(ctx, groupIDs, false)
}

func (s *Store) getBalances(ctx context.Context, groupIDs []string, consistent bool) ([]*GroupBalances, error) {
	keys := make([]map[string]types.AttributeValue, len(groupIDs))
	for i, id := range groupIDs {
		keys[i] = tableKey(groupPK(id), skLedger)
	}
	ledgers, err := s.batchRead(ctx, dedupeKeys(keys), consistent)
	if err != nil {
		return nil, err
	}
	byGroup := make(map[string]*GroupBalances, len(ledgers))
	var bookKeys []map[string]types.AttributeValue
	for _, item := range ledgers {
		var rec ledgerRecord
		if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
			return nil, fmt.Errorf("decode ledger: %w", err)
		}
		id := groupIDFromPK(rec.PK)
		slices.Sort(rec.MemberIDs)
		byGroup[id] = &GroupBalances{GroupID: id, Version: rec.Version, MemberIDs: rec.MemberIDs}
		for _, c := range rec.Currencies {
			bookKeys = append(bookKeys, tableKey(rec.PK, balancesSK(c)))
		}
	}
	books, err := s.batchRead(ctx, bookKeys, consistent)
	if err != nil {
		return nil, err
	}
	for _, item := range books {
		b, err := decodeBook(item)
		if err != nil {
			return nil, err
		}
		g := byGroup[groupIDFromPK(item[attrPK].(*types.AttributeValueMemberS).Value)]
		g.Books = append(g.Books, b)
	}
	out := make([]*GroupBalances, len(groupIDs))
	for i, id := range groupIDs {
		if g := byGroup[id]; g != nil {
			slices.SortFunc(g.Books, func(x, y *ledger.Book) int { return strings.Compare(x.Currency.Code(), y.Currency.Code()) })
			out[i] = g
		}
	}
	return out, nil
}

// decodeBook reads a BALANCES#<currency> item.
func decodeBook(item map[string]types.AttributeValue) (*ledger.Book, error) {
	code, _ := item["currency"].(*types.AttributeValueMemberS)
	if code == nil {
		return nil, fmt.Errorf("balances item without currency")
	}
	cur, err := money.LookupCurrency(code.Value)
	if err != nil {
		return nil, err
	}
	b := ledger.NewBook(cur)
	user := func(id string) *ledger.UserBalance {
		u := b.Users[id]
		if u == nil {
			z := money.Zero(cur)
			u = &ledger.UserBalance{Paid: z, Owed: z, Sent: z, Received: z}
			b.Users[id] = u
		}
		return u
	}
	for name, v := range item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok || len(name) < 3 || name[1] != ':' {
			continue
		}
		a, err := readAmount(attributevalue.Number(n.Value), cur.Code())
		if err != nil {
			return nil, fmt.Errorf("balance %s: %w", name, err)
		}
		key := name[2:]
		switch name[:2] {
		case attrPaid:
			user(key).Paid = a
		case attrOwed:
			user(key).Owed = a
		case attrSent:
			user(key).Sent = a
		case attrReceived:
			user(key).Received = a
		case attrDebt:
			x, y, found := strings.Cut(key, ":")
			if !found {
				return nil, fmt.Errorf("balance %s: not a pair", name)
			}
			b.Pairs[ledger.Pair{A: x, B: y}] = a
		}
	}
	return b, nil
}
