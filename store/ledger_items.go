package store

import (
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

// The transaction items on a group's ledger and balances that every write to
// a group shares. Every write edits the ledger: it appends the write's
// activity event to the chain (see writeWithEvent), and writes that change
// balances also require their members and currency there.

// ledgerEdit builds the one Update a transaction makes to a group's LEDGER
// item: the clauses of its update expression, its conditions (the ledger
// exists, so the group does, and the group is neither archived nor deleted
// unless the edit opts out), and their values.
type ledgerEdit struct {
	groupID string
	set     []string
	add     []string
	del     []string
	remove  []string
	conds   []string
	values  map[string]types.AttributeValue
	// archivedOK and deletedOK drop the default conditions that the group
	// is not archived, not deleted: the writes that archive, unarchive,
	// delete and restore a group set them.
	archivedOK, deletedOK bool
}

func newLedgerEdit(groupID string) *ledgerEdit {
	return &ledgerEdit{groupID: groupID, conds: []string{condItemExists}, values: map[string]types.AttributeValue{}}
}

// writesArchived lets the edit write to an archived group, and
// writesDeleted to a deleted one.
func (l *ledgerEdit) writesArchived() { l.archivedOK = true }

func (l *ledgerEdit) writesDeleted() { l.deletedOK = true }

// value names v with a fresh placeholder.
func (l *ledgerEdit) value(v types.AttributeValue) string {
	ph := ":l" + strconv.Itoa(len(l.values))
	l.values[ph] = v
	return ph
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func stringSet(v ...string) types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: v}
}

// requireMembers: every listed user is a current member.
func (l *ledgerEdit) requireMembers(users []string) {
	for _, u := range users {
		l.conds = append(l.conds, attrContains(attrMemberIDs, l.value(str(u))))
	}
}

// changeBalances is the edit of a write that changes balances in cur: it
// requires the group and every listed user to be current members and the
// currency to be one the group holds balances in, or room for one more
// (maxCurrencies); it records the currency and bumps the balances' version.
// When its condition fails, ledgerRefusal tells why.
func (l *ledgerEdit) changeBalances(members []string, cur money.Currency, maxCurrencies int) {
	l.changeBalancesIn(members, []money.Currency{cur}, maxCurrencies)
}

// changeBalancesIn is changeBalances in several currencies at once (a
// settlement of several parts): the group may hold them all when it holds
// each already, or when they would all fit as new ones beside those it
// holds (a condition cannot count which are new; parts come from debts in
// currencies the group holds, so the cautious bound never bites in practice).
func (l *ledgerEdit) changeBalancesIn(members []string, curs []money.Currency, maxCurrencies int) {
	l.requireMembers(members)
	codes := make([]string, len(curs))
	held := make([]string, len(curs))
	for i, c := range curs {
		codes[i] = c.Code()
		held[i] = attrContains(attrCurrencies, l.value(str(codes[i])))
	}
	l.add = append(l.add, attrCurrencies+" "+l.value(stringSet(codes...)))
	l.conds = append(l.conds, "("+attrNotExists(attrCurrencies)+" OR ("+strings.Join(held, " AND ")+
		") OR size("+attrCurrencies+") <= "+l.value(number(int64(maxCurrencies-len(curs))))+")")
	l.bumpVersion()
}

// bumpVersion marks the balances changed, which a leave conditioned on the
// version it read must notice.
func (l *ledgerEdit) bumpVersion() {
	l.add = append(l.add, attrVersion+" "+l.value(number(1)))
}

// addMember and removeMember change the current members.
func (l *ledgerEdit) addMember(userID string) {
	l.add = append(l.add, attrMemberIDs+" "+l.value(stringSet(userID)))
}

func (l *ledgerEdit) removeMember(userID string) {
	l.del = append(l.del, attrMemberIDs+" "+l.value(stringSet(userID)))
}

// atVersion: nothing changed the balances since version was read; a ledger no
// write has bumped yet may have no version at all.
func (l *ledgerEdit) atVersion(version int64) {
	cond := attrVersion + " = " + l.value(number(version))
	if version == 0 {
		cond = "(" + attrNotExists(attrVersion) + " OR " + cond + ")"
	}
	l.conds = append(l.conds, cond)
}

// item is the transaction item. On a failed condition it returns the
// ledger as it was, for ledgerRefusal and writeWithEvent to read.
func (l *ledgerEdit) item(table *string) types.TransactWriteItem {
	var expr []string
	for _, c := range []struct {
		verb    string
		clauses []string
	}{{"SET", l.set}, {"ADD", l.add}, {"DELETE", l.del}, {"REMOVE", l.remove}} {
		if len(c.clauses) > 0 {
			expr = append(expr, c.verb+" "+strings.Join(c.clauses, ", "))
		}
	}
	conds := l.conds
	if !l.archivedOK {
		conds = append(conds, attrNotExists(attrArchivedAt))
	}
	if !l.deletedOK {
		conds = append(conds, attrNotExists(attrDeletedAt))
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           table,
		Key:                                 tableKey(groupPK(l.groupID), skLedger),
		UpdateExpression:                    aws.String(strings.Join(expr, " ")),
		ConditionExpression:                 aws.String(strings.Join(conds, " AND ")),
		ExpressionAttributeValues:           l.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// closedRefusal explains a failed ledger edit at index i of a cancelled
// transaction when the group was closed to it: ErrArchived (with how to
// reopen it) for an archived group, ErrNotFound for a deleted one; nil
// when the ledger shows neither (another condition failed).
func (l *ledgerEdit) closedRefusal(err error, i int) error {
	if !condFailedAt(err, i) {
		return nil
	}
	old := oldItemAt(err, i)
	if old == nil {
		return nil
	}
	var rec ledgerRecord
	if attributevalue.UnmarshalMap(old, &rec) != nil {
		return nil
	}
	switch {
	case rec.DeletedAt != "" && !l.deletedOK:
		return notFoundf("group %s", l.groupID)
	case rec.ArchivedAt != "" && !l.archivedOK:
		return errArchived
	}
	return nil
}

// ledgerRefusal explains a failed ledgerUpdate at index i of a cancelled
// transaction: ErrTooManyCurrencies when the group and members were fine but
// the currency would be one too many, otherwise missing (a group or member
// is gone, which the caller knows how to say).
func (s *Store) ledgerRefusal(err error, i int, cur money.Currency, missing error) error {
	return s.ledgerRefusalIn(err, i, []money.Currency{cur}, missing)
}

// ledgerRefusalIn is ledgerRefusal for a write in several currencies.
func (s *Store) ledgerRefusalIn(err error, i int, curs []money.Currency, missing error) error {
	old := oldItemAt(err, i)
	if old == nil {
		return missing
	}
	var rec ledgerRecord
	if attributevalue.UnmarshalMap(old, &rec) != nil {
		return missing
	}
	held := true
	for _, c := range curs {
		held = held && slices.Contains(rec.Currencies, c.Code())
	}
	// As changeBalancesIn's condition: all held, or room for all of them.
	if !held && len(rec.Currencies) > s.maxCurrencies-len(curs) {
		return fmt.Errorf("%w: the group already holds balances in %d currencies (%s), the most one group may; use one of them",
			ErrTooManyCurrencies, len(rec.Currencies), strings.Join(rec.Currencies, ", "))
	}
	return missing
}

// balancesUpdates are the transaction items that add deltas to the
// group's balances, one book each.
func (s *Store) balancesUpdates(groupID string, ds []ledger.Delta) []types.TransactWriteItem {
	out := make([]types.TransactWriteItem, len(ds))
	for i, d := range ds {
		out[i] = s.balancesUpdate(groupID, d)
	}
	return out
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
		Key:                       tableKey(groupPK(groupID), bookSK(d.Currency.Code())),
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
