package store

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/money"
)

// Spending summaries (seed 004): one item per group, day and currency, kept
// by ADD in the same transaction as every write that changes an expense, so
// that a chart of a year reads one Query of summaries and never the
// expenses. The day is the expense's stored SpentOn, so the summaries can be
// rebuilt from the expense items alone (RebuildSpending).
//
// Every figure is a top-level Number attribute in integer minor units (ADD
// works on top-level attributes without a map having to exist first):
//
//	total            the expenses' amounts
//	count            how many expenses
//	nocat, cat#<c>   the amounts without a category, and per category
//	paid#<userId>    what each member paid
//	share#<userId>   each member's share
//	n#<userId>       in how many of the expenses each member has a share

// Attributes of a spending summary item.
const (
	attrSpendDay      = "day"
	attrSpendCurrency = "currency"
	spendTotal        = "total"
	spendCount        = "count"
	spendNoCategory   = "nocat"
	spendCategory     = "cat#"
	spendPaid         = "paid#"
	spendShare        = "share#"
	spendShares       = "n#"
	attrTimeZone      = "timeZone" // on the group's METADATA item
)

// locations caches time zones by name: time.LoadLocation reads the zone
// database every time.
var locations sync.Map

// LoadZone is the time zone of an IANA name; "" is UTC.
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, fmt.Errorf("%q is not an IANA time zone name such as Europe/Berlin", name)
	}
	locations.Store(name, loc)
	return loc, nil
}

// DayIn is the day (DayLayout) of t in the time zone named zone ("" is UTC).
func DayIn(t time.Time, zone string) (string, error) {
	loc, err := LoadZone(zone)
	if err != nil {
		return "", err
	}
	return t.In(loc).Format(DayLayout), nil
}

// spentOnFor is the day an expense is written with: the day of SpentAt in
// the group's zone for a new expense or an edit of SpentAt; otherwise the
// day the expense already has, so that a change of the group's zone never
// moves an expense between summaries behind its back.
func spentOnFor(old, next *Expense) (string, error) {
	if old != nil && next.SpentAt.Equal(old.SpentAt) && old.SpentOn != "" {
		return old.SpentOn, nil
	}
	return DayIn(next.SpentAt, next.TimeZone)
}

// figures are a summary's numbers by attribute name, in minor units.
type figures map[string]*big.Int

func (f figures) add(attr string, n *big.Int) {
	if n.Sign() == 0 {
		return
	}
	if f[attr] == nil {
		f[attr] = new(big.Int)
	}
	f[attr].Add(f[attr], n)
	if f[attr].Sign() == 0 {
		delete(f, attr)
	}
}

func (f figures) merge(g figures, sign int64) {
	for attr, n := range g {
		f.add(attr, new(big.Int).Mul(n, big.NewInt(sign)))
	}
}

// equal: the same non-zero figures.
func (f figures) equal(g figures) bool {
	if len(f) != len(g) {
		return false
	}
	for attr, n := range f {
		if g[attr] == nil || g[attr].Cmp(n) != 0 {
			return false
		}
	}
	return true
}

// spendKey is one summary item: a day and a currency.
type spendKey struct{ day, currency string }

// spending is what a live expense adds to its day's summary.
func (e *Expense) spending() (spendKey, figures) {
	f := figures{}
	f.add(spendTotal, e.Amount.Minor())
	f.add(spendCount, big.NewInt(1))
	cat := spendNoCategory
	if e.Category != "" {
		cat = spendCategory + e.Category
	}
	f.add(cat, e.Amount.Minor())
	for _, p := range e.Payers {
		f.add(spendPaid+p.UserID, p.Amount.Minor())
	}
	for _, sp := range e.Splits {
		f.add(spendShare+sp.UserID, sp.Amount.Minor())
		if !sp.Amount.IsZero() {
			f.add(spendShares+sp.UserID, big.NewInt(1))
		}
	}
	return spendKey{day: e.spentOn(), currency: e.Amount.Currency().Code()}, f
}

// spentOn is the stored day, or for an expense read from an item written
// before days were stored, the UTC day of SpentAt.
func (e *Expense) spentOn() string {
	if e.SpentOn != "" {
		return e.SpentOn
	}
	return e.SpentAt.UTC().Format(DayLayout)
}

// spendingChanges is what changing an expense from before to after (either
// nil: a creation, a deletion) does to the summaries, per item, without the
// items that come out unchanged.
func spendingChanges(before, after *Expense) map[spendKey]figures {
	out := map[spendKey]figures{}
	for _, c := range []struct {
		e    *Expense
		sign int64
	}{{before, -1}, {after, 1}} {
		if c.e == nil {
			continue
		}
		k, f := c.e.spending()
		if out[k] == nil {
			out[k] = figures{}
		}
		out[k].merge(f, c.sign)
	}
	for k, f := range out {
		if len(f) == 0 {
			delete(out, k)
		}
	}
	return out
}

// spendingUpdates are the transaction items that keep the group's spending
// summaries in step with a change of an expense from before to after
// (before nil: created; after nil: deleted): one ADD per summary item the
// change moves, two when it moves the expense to another day or currency,
// none when it changes nothing a summary counts (a transaction may not touch
// an item twice, so one item's changes are netted first).
func (s *Store) spendingUpdates(groupID string, before, after *Expense) []types.TransactWriteItem {
	return s.spendingUpdatesOf(groupID, spendingChanges(before, after))
}

// spendingUpdatesOf are the ADDs of many expenses' summaries, netted per item.
func (s *Store) spendingUpdatesOf(groupID string, m map[spendKey]figures) []types.TransactWriteItem {
	return s.importSpendingUpdates(groupID, "", m)
}

// importSpendingUpdates are spendingUpdatesOf into the parts of the
// summaries an import keeps (spendImportSK), marked as its items; with no
// fileHash, into the summaries themselves.
func (s *Store) importSpendingUpdates(groupID, fileHash string, m map[spendKey]figures) []types.TransactWriteItem {
	keys := make([]spendKey, 0, len(m))
	for k, f := range m {
		if len(f) > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b spendKey) int {
		return strings.Compare(spendSK(a.day, a.currency), spendSK(b.day, b.currency))
	})
	items := make([]types.TransactWriteItem, 0, len(keys))
	for _, k := range keys {
		items = append(items, s.spendingAdd(groupID, k, m[k], fileHash))
	}
	return items
}

// spendingAdd is the Update that adds f to one summary item, creating it
// if needed: the day's own, or with fileHash that import's part of it.
func (s *Store) spendingAdd(groupID string, k spendKey, f figures, fileHash string) types.TransactWriteItem {
	names := map[string]string{"#day": attrSpendDay, "#cur": attrSpendCurrency}
	values := map[string]types.AttributeValue{":day": str(k.day), ":cur": str(k.currency)}
	set := "SET #day = :day, #cur = :cur"
	sk := spendSK(k.day, k.currency)
	if fileHash != "" {
		names["#imp"], values[":imp"] = attrImport, str(fileHash)
		set += ", #imp = :imp"
		sk = spendImportSK(k.day, k.currency, fileHash)
	}
	var adds []string
	for i, attr := range sortedKeys(f) {
		n := strconv.Itoa(i)
		names["#a"+n] = attr
		values[":a"+n] = &types.AttributeValueMemberN{Value: f[attr].String()}
		adds = append(adds, "#a"+n+" :a"+n)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(groupID), sk),
		UpdateExpression:          aws.String(set + " ADD " + strings.Join(adds, ", ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}
}

// spendingItem is a whole summary item, as RebuildSpending writes it.
func spendingItem(groupID string, k spendKey, f figures) map[string]types.AttributeValue {
	item := tableKey(groupPK(groupID), spendSK(k.day, k.currency))
	item[attrSpendDay], item[attrSpendCurrency] = str(k.day), str(k.currency)
	for attr, n := range f {
		item[attr] = &types.AttributeValueMemberN{Value: n.String()}
	}
	return item
}

// readSpendingItem decodes a summary item's key and figures.
func readSpendingItem(item map[string]types.AttributeValue) (spendKey, figures, error) {
	day, cur, ok := parseSpendSK(keyAttr(item, attrSK))
	if !ok {
		return spendKey{}, nil, fmt.Errorf("spending summary %q: not a summary key", keyAttr(item, attrSK))
	}
	f := figures{}
	for attr, v := range item {
		isFigure := attr == spendTotal || attr == spendCount || attr == spendNoCategory
		for _, p := range []string{spendCategory, spendPaid, spendShare, spendShares} {
			isFigure = isFigure || strings.HasPrefix(attr, p)
		}
		if !isFigure {
			continue
		}
		nv, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			return spendKey{}, nil, fmt.Errorf("spending summary %s %s: %s is not a number", day, cur, attr)
		}
		plain, err := plainDecimal(nv.Value)
		if err != nil {
			return spendKey{}, nil, err
		}
		n, ok := new(big.Int).SetString(plain, 10)
		if !ok {
			return spendKey{}, nil, fmt.Errorf("spending summary %s %s: %s = %q is not an integer", day, cur, attr, nv.Value)
		}
		f.add(attr, n)
	}
	return spendKey{day: day, currency: cur}, f, nil
}

// SpendingDay is one group's spending on one day in one currency, as its
// summary item holds it. Only non-zero figures are listed.
type SpendingDay struct {
	GroupID  string
	Day      string // DayLayout
	Currency money.Currency
	Total    money.Amount
	Count    int64
	// ByCategory is keyed by category; "" is the expenses without one.
	ByCategory map[string]money.Amount
	// Paid and Share are per member: what they paid, and their share.
	Paid  map[string]money.Amount
	Share map[string]money.Amount
	// Shares is per member how many of the expenses they have a share in.
	Shares map[string]int64
}

// spendingDay converts a summary's figures.
func spendingDay(groupID string, k spendKey, f figures) (SpendingDay, error) {
	cur, err := money.LookupCurrency(k.currency)
	if err != nil {
		return SpendingDay{}, fmt.Errorf("spending summary %s %s: %w", k.day, k.currency, err)
	}
	amount := func(n *big.Int) money.Amount {
		if n == nil {
			return money.Zero(cur)
		}
		return money.NewAmountBig(n, cur)
	}
	d := SpendingDay{
		GroupID: groupID, Day: k.day, Currency: cur, Total: amount(f[spendTotal]),
		ByCategory: map[string]money.Amount{}, Paid: map[string]money.Amount{},
		Share: map[string]money.Amount{}, Shares: map[string]int64{},
	}
	for attr, n := range f {
		switch {
		case attr == spendCount:
			d.Count = n.Int64()
		case attr == spendNoCategory:
			d.ByCategory[""] = amount(n)
		case strings.HasPrefix(attr, spendCategory):
			d.ByCategory[strings.TrimPrefix(attr, spendCategory)] = amount(n)
		case strings.HasPrefix(attr, spendPaid):
			d.Paid[strings.TrimPrefix(attr, spendPaid)] = amount(n)
		case strings.HasPrefix(attr, spendShare):
			d.Share[strings.TrimPrefix(attr, spendShare)] = amount(n)
		case strings.HasPrefix(attr, spendShares):
			d.Shares[strings.TrimPrefix(attr, spendShares)] = n.Int64()
		}
	}
	return d, nil
}
