package store

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/exchange"
	"github.com/fracti/api/money"
)

// An itemized expense is an ordinary expense (EXACT splits: each person's
// total) that also keeps the lines and adjustments its splits were computed
// from. They live on the expense item itself, encoded compactly because an
// expense is written whole on every change and every KB is a write unit:
// short attribute names, amounts in minor units, people as indexes into the
// expense's splits (so a claimed placeholder or an erased name needs no
// rewrite of the lines). The limits below keep the item far under
// DynamoDB's 400 KB by construction (TestItemizedExpenseSize).

// Limits of an itemized expense.
const (
	MaxItems                 = 100  // lines
	MaxItemDescriptionLength = 100  // characters of a line's description
	MaxItemShares            = 1000 // people over all lines together
	MaxAdjustments           = 10
)

// Item is one line of an itemized expense.
type Item struct {
	Description string
	Amount      money.Amount
	SplitType   SplitType
	Shares      []ItemShare
}

// ItemShare is one person's part of a line: Person is the index of their
// split in the expense's Splits.
type ItemShare struct {
	Person     int
	Amount     money.Amount
	Percentage *money.Decimal // set on percentage lines
	Shares     *money.Decimal // set on shares lines
}

// AdjustmentKind is what an adjustment of an itemized expense is.
type AdjustmentKind string

// The adjustment kinds, stored as one letter.
const (
	AdjustmentTax      AdjustmentKind = "t"
	AdjustmentTip      AdjustmentKind = "p"
	AdjustmentService  AdjustmentKind = "s"
	AdjustmentDiscount AdjustmentKind = "d"
)

// Adjustment is a tax, tip, service charge or discount of an itemized
// expense: Amount or Percentage as given, and AppliedAmount, what it came to
// (negative for a discount).
type Adjustment struct {
	Kind          AdjustmentKind
	Amount        *money.Amount
	Percentage    *money.Decimal
	AppliedAmount money.Amount
}

// itemRecord is one line in the expense item's "it" list.
type itemRecord struct {
	Description string                  `dynamodbav:"d"`
	Amount      attributevalue.Number   `dynamodbav:"a"`           // minor units
	SplitType   string                  `dynamodbav:"t,omitempty"` // absent: equal
	People      []int                   `dynamodbav:"p"`           // indexes into splits
	Parts       []attributevalue.Number `dynamodbav:"v"`           // minor units, one per person
	Weights     []attributevalue.Number `dynamodbav:"w,omitempty"` // percentages or shares, one per person
}

// adjustmentRecord is one adjustment in the expense item's "aj" list.
type adjustmentRecord struct {
	Kind       string                 `dynamodbav:"k"`
	Applied    attributevalue.Number  `dynamodbav:"a"`           // minor units, without the discount's sign
	Percentage *attributevalue.Number `dynamodbav:"r,omitempty"` // absent: the amount was given
}

// splitTypeLetters are the stored split types of lines, equal left out.
var splitTypeLetters = map[SplitType]string{SplitExact: "x", SplitPercentage: "p", SplitShares: "s"}

func minorNumber(a money.Amount) attributevalue.Number {
	return attributevalue.Number(a.Minor().String())
}

func readMinor(n attributevalue.Number, cur money.Currency) (money.Amount, error) {
	s, err := plainDecimal(string(n))
	if err != nil {
		return money.Amount{}, err
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return money.Amount{}, fmt.Errorf("stored minor units %q are not an integer", n)
	}
	return money.NewAmountBig(v, cur), nil
}

func itemRecords(items []Item) []itemRecord {
	if len(items) == 0 {
		return nil
	}
	out := make([]itemRecord, len(items))
	for i, it := range items {
		r := itemRecord{Description: it.Description, Amount: minorNumber(it.Amount), SplitType: splitTypeLetters[it.SplitType]}
		for _, sh := range it.Shares {
			r.People = append(r.People, sh.Person)
			r.Parts = append(r.Parts, minorNumber(sh.Amount))
			if w := sh.Percentage; w != nil || sh.Shares != nil {
				if w == nil {
					w = sh.Shares
				}
				r.Weights = append(r.Weights, decimalNumber(*w))
			}
		}
		out[i] = r
	}
	return out
}

func adjustmentRecords(adjs []Adjustment) []adjustmentRecord {
	if len(adjs) == 0 {
		return nil
	}
	out := make([]adjustmentRecord, len(adjs))
	for i, a := range adjs {
		applied := a.AppliedAmount
		if applied.Sign() < 0 {
			applied = applied.Neg()
		}
		out[i] = adjustmentRecord{Kind: string(a.Kind), Applied: minorNumber(applied), Percentage: optionalDecimalNumber(a.Percentage)}
	}
	return out
}

// readItems reads the lines of an expense with people people.
func readItems(rs []itemRecord, cur money.Currency, people int) ([]Item, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	types := map[string]SplitType{"": SplitEqual}
	for t, l := range splitTypeLetters {
		types[l] = t
	}
	out := make([]Item, len(rs))
	for i, r := range rs {
		st, ok := types[r.SplitType]
		amount, err := readMinor(r.Amount, cur)
		switch {
		case err != nil:
			return nil, fmt.Errorf("item %d: %w", i, err)
		case !ok:
			return nil, fmt.Errorf("item %d: split type %q", i, r.SplitType)
		case len(r.Parts) != len(r.People) || (len(r.Weights) != 0 && len(r.Weights) != len(r.People)):
			return nil, fmt.Errorf("item %d: %d people, %d parts, %d weights", i, len(r.People), len(r.Parts), len(r.Weights))
		}
		it := Item{Description: r.Description, Amount: amount, SplitType: st, Shares: make([]ItemShare, len(r.People))}
		for k, p := range r.People {
			if p < 0 || p >= people {
				return nil, fmt.Errorf("item %d: person %d of %d", i, p, people)
			}
			a, err := readMinor(r.Parts[k], cur)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			sh := ItemShare{Person: p, Amount: a}
			if len(r.Weights) > 0 {
				w, err := readDecimal(r.Weights[k])
				if err != nil {
					return nil, fmt.Errorf("item %d: %w", i, err)
				}
				if st == SplitPercentage {
					sh.Percentage = &w
				} else {
					sh.Shares = &w
				}
			}
			it.Shares[k] = sh
		}
		out[i] = it
	}
	return out, nil
}

func readAdjustments(rs []adjustmentRecord, cur money.Currency) ([]Adjustment, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]Adjustment, len(rs))
	for i, r := range rs {
		applied, err := readMinor(r.Applied, cur)
		if err != nil {
			return nil, fmt.Errorf("adjustment %d: %w", i, err)
		}
		a := Adjustment{Kind: AdjustmentKind(r.Kind), AppliedAmount: applied}
		if a.Percentage, err = readOptionalDecimal(r.Percentage); err != nil {
			return nil, fmt.Errorf("adjustment %d: %w", i, err)
		}
		if a.Percentage == nil {
			given := applied
			a.Amount = &given
		}
		if a.Kind == AdjustmentDiscount {
			a.AppliedAmount = applied.Neg()
		}
		out[i] = a
	}
	return out, nil
}

// The fields of an itemized expense a revision records.
const (
	FieldItems       = "items"
	FieldAdjustments = "adjustments"
)

// adjustmentNames are the kinds as the schema spells them.
var adjustmentNames = map[AdjustmentKind]string{
	AdjustmentTax: "TAX", AdjustmentTip: "TIP", AdjustmentService: "SERVICE", AdjustmentDiscount: "DISCOUNT",
}

// AdjustmentName is the kind as the schema spells it (TAX).
func (k AdjustmentKind) AdjustmentName() string { return adjustmentNames[k] }

// addItemsDisplay adds the lines and adjustments to a revision's display
// of e: one line at a time, "Pizza 24.00 (EQUAL): Ann 12.00, Ben 12.00 |
// Wine 30.00 (…)…", and "TAX 8.875% = 5.59; DISCOUNT 5.00 = -5.00".
func addItemsDisplay(d map[string]string, e *Expense) {
	if len(e.Items) > 0 {
		lines := make([]string, len(e.Items))
		for i, it := range e.Items {
			shares := make([]string, len(it.Shares))
			for k, sh := range it.Shares {
				who := "?"
				if sh.Person < len(e.Splits) {
					sp := e.Splits[sh.Person]
					who = personRef(sp.UserID, sp.UserName)
				}
				shares[k] = who + " " + sh.Amount.String()
				switch {
				case sh.Percentage != nil:
					shares[k] += " (" + sh.Percentage.String() + "%)"
				case sh.Shares != nil:
					shares[k] += " (" + sh.Shares.String() + " shares)"
				}
			}
			lines[i] = it.Description + " " + it.Amount.String() + " (" + strings.ToUpper(string(it.SplitType)) + "): " + strings.Join(shares, ", ")
		}
		d[FieldItems] = strings.Join(lines, " | ")
	}
	if len(e.Adjustments) > 0 {
		adjs := make([]string, len(e.Adjustments))
		for i, a := range e.Adjustments {
			given := ""
			if a.Percentage != nil {
				given = a.Percentage.String() + "%"
			} else if a.Amount != nil {
				given = a.Amount.String()
			}
			adjs[i] = a.Kind.AdjustmentName() + " " + given + " = " + a.AppliedAmount.String()
		}
		d[FieldAdjustments] = strings.Join(adjs, "; ")
	}
}

// importItems gives e the lines and adjustments of the imported itemized
// expense pe (the reader checked that they come to its splits), each share
// pointing at the split of the person it names.
func importItems(e *Expense, pe *exchange.Expense) error {
	person := make(map[string]int, len(pe.Splits))
	for i, p := range pe.Splits {
		person[p.Name] = i
	}
	for _, it := range pe.Items {
		item := Item{Description: it.Description, Amount: it.Amount, SplitType: SplitType(it.SplitType)}
		for _, p := range it.Shares {
			n, ok := person[p.Name]
			if !ok {
				return fmt.Errorf("%q shares a line but not the expense", p.Name)
			}
			item.Shares = append(item.Shares, ItemShare{Person: n, Amount: p.Amount, Percentage: p.Percentage, Shares: p.Shares})
		}
		e.Items = append(e.Items, item)
	}
	for _, a := range pe.Adjustments {
		e.Adjustments = append(e.Adjustments, Adjustment{Kind: AdjustmentKind(a.Kind), Amount: a.Amount, Percentage: a.Percentage, AppliedAmount: a.Applied})
	}
	return nil
}

// itemsParts are an itemized expense's lines and adjustments in its
// fingerprint, after its splits; none for an expense that is not itemized,
// whose fingerprint stays what it was. The leading part is no user id, so
// it cannot be read as one more split.
func itemsParts(e *Expense) []string {
	if len(e.Items) == 0 && len(e.Adjustments) == 0 {
		return nil
	}
	parts := []string{"items", strconv.Itoa(len(e.Items)), strconv.Itoa(len(e.Adjustments))}
	for _, it := range e.Items {
		parts = append(parts, it.Description, it.Amount.String(), string(it.SplitType), strconv.Itoa(len(it.Shares)))
		for _, sh := range it.Shares {
			parts = append(parts, strconv.Itoa(sh.Person), sh.Amount.String(), optionalDecimal(sh.Percentage), optionalDecimal(sh.Shares))
		}
	}
	for _, a := range e.Adjustments {
		given := "-"
		if a.Amount != nil {
			given = a.Amount.String()
		}
		parts = append(parts, string(a.Kind), given, optionalDecimal(a.Percentage), a.AppliedAmount.String())
	}
	return parts
}
