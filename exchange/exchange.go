// Package exchange is a group's data in and out of Fracti. Its
// subpackages are the formats (fractijson, splitwise, spliit); this package
// is the neutral Plan every imported file is read into, which the importer
// then writes into a group, and the problems reading a file finds.
package exchange

import (
	"fmt"
	"time"

	"github.com/fracti/api/money"
)

// Format names a file format an import reads.
type Format string

// The formats an import reads.
const (
	FractiJSON   Format = "FRACTI_JSON"
	SplitwiseCSV Format = "SPLITWISE_CSV"
	SpliitJSON   Format = "SPLIIT_JSON"
)

// FormulaStart is the characters a spreadsheet cell may begin with to be
// read as a formula, which OWASP advises neutralising with a single quote
// before the cell: =, +, -, @, a tab and a carriage return.
const FormulaStart = "=+-@\t\r"

// Plan is what a file asks to create in a group, in the file's order.
// Every person is named by Name as the file spells it (trimmed); the
// importer maps names to members.
type Plan struct {
	// Title and Currency are the group's, when the file says them ("" if not).
	Title    string
	Currency string
	// People is every name the file mentions, in order of first appearance,
	// each once, with what else the file knows of them.
	People      []Person
	Expenses    []Expense
	Settlements []Settlement
	Comments    []Comment
	// Balances is what the file itself says each person's balance is in
	// each currency once everything is applied (Splitwise's Total balance
	// row, a Fracti export's balances); nil when the file does not say.
	Balances []Balance
	// Problems are warnings about rows that were read anyway (an error ends
	// reading instead, as a *Problem).
	Problems []Problem
}

// Person is someone a file names.
type Person struct {
	Name string
	// Key is the file's own id for the person ("" when it has none): a
	// Fracti export's member id, a Spliit participant id.
	Key string
	// Placeholder is true when the file says the person never joined (a
	// Fracti export's placeholder member).
	Placeholder bool
	// Left is true when the file says the person left the group.
	Left bool
}

// Part is an amount attached to one person: what they paid, or their share.
type Part struct {
	Name   string
	Amount money.Amount
	// Percentage and Shares keep what a percentage or shares split gave
	// this person (nil otherwise), for a faithful copy; Amount is always
	// the exact share.
	Percentage *money.Decimal
	Shares     *money.Decimal
}

// SplitType is how an expense was divided, as the store names it.
type SplitType string

// The split types (the values of store.SplitType).
const (
	SplitEqual      SplitType = "equal"
	SplitExact      SplitType = "exact"
	SplitPercentage SplitType = "percentage"
	SplitShares     SplitType = "shares"
)

// Expense is one expense to create. Payers' amounts and Splits' amounts
// each sum exactly to Amount, in Amount's currency.
type Expense struct {
	// Line is where the expense is in the file (a CSV line, or the 1-based
	// index of a JSON array element), for problems and reports.
	Line int
	// Key identifies the expense within the file, stable across reads of
	// the same file: the file's own id when it has one, else derived from
	// the row. The importer derives the new expense's id from it, so that
	// importing the same file twice creates nothing new.
	Key         string
	Description string
	Category    string
	SpentAt     time.Time
	CreatedAt   time.Time // zero: SpentAt
	Amount      money.Amount
	SplitType   SplitType
	Payers      []Part
	Splits      []Part
	// Original is set when the expense was entered in another currency.
	Original *Original
	// Items and Adjustments are set on an itemized expense (SplitType
	// exact): its lines and adjustments, which come to exactly its Splits
	// (money.SplitBill).
	Items       []Item
	Adjustments []Adjustment
}

// Item is one line of an itemized expense: Shares (each person at most
// once, and each one of the expense's Splits) add up to Amount.
type Item struct {
	Description string
	Amount      money.Amount
	SplitType   SplitType
	Shares      []Part
}

// AdjustmentKind is what an adjustment is, as the store names it.
type AdjustmentKind string

// The adjustment kinds (the values of store.AdjustmentKind).
const (
	AdjustmentTax      AdjustmentKind = "t"
	AdjustmentTip      AdjustmentKind = "p"
	AdjustmentService  AdjustmentKind = "s"
	AdjustmentDiscount AdjustmentKind = "d"
)

// Adjustment is a tax, tip, service charge or discount of an itemized
// expense: Amount or Percentage as given, and Applied, what it came to
// (negative for a discount).
type Adjustment struct {
	Kind       AdjustmentKind
	Amount     *money.Amount
	Percentage *money.Decimal
	Applied    money.Amount
}

// Original is an amount as entered in another currency and the rate it
// was converted at (one unit of Amount's currency in the expense's).
type Original struct {
	Amount     money.Amount
	Rate       money.Decimal
	RateSource string
	RateDate   string
}

// Settlement is a completed payment from one person to another.
type Settlement struct {
	Line      int
	Key       string
	From      string
	To        string
	Amount    money.Amount
	CreatedAt time.Time
	// TxHash is the TON transaction hash when the file has one.
	TxHash string
	// Status is the store's settlement status ("completed" when the file
	// does not say); only completed settlements move balances.
	Status string
	// Settles is set when the payment settled a balance in another currency.
	Settles *Original
	// Parts is set, instead, when it settled balances in several currencies
	// (a negative part from the recipient to the payer).
	Parts []Original
}

// SettledParts is what the settlement moved in balances: its parts, else
// what it settled in another currency, else its amount.
func (s *Settlement) SettledParts() []money.Amount {
	switch {
	case len(s.Parts) > 0:
		out := make([]money.Amount, len(s.Parts))
		for i, p := range s.Parts {
			out[i] = p.Amount
		}
		return out
	case s.Settles != nil:
		return []money.Amount{s.Settles.Amount}
	}
	return []money.Amount{s.Amount}
}

// Comment is a comment on an expense of the file.
type Comment struct {
	Line       int
	Key        string
	ExpenseKey string
	Author     string
	Body       string
	CreatedAt  time.Time
	// Deleted marks a tombstone: the comment was deleted (Body is "").
	Deleted bool
}

// Balance is one person's balance in one currency: positive when they
// are owed money.
type Balance struct {
	Name   string
	Amount money.Amount
}

// Severity says whether a problem stops the import.
type Severity string

// The severities of a problem.
const (
	Warning Severity = "WARNING"
	Error   Severity = "ERROR"
)

// Problem is something wrong in a file, where it is: its line (1-based;
// for JSON, the line in the file where the element starts when the reader
// knows it, else 0) and field (a column header or a JSON field path).
type Problem struct {
	Line     int
	Field    string
	Message  string
	Severity Severity
}

// Error makes an Error problem usable as the error that ends reading a file.
func (p *Problem) Error() string {
	if p.Field != "" {
		return fmt.Sprintf("line %d, %s: %s", p.Line, p.Field, p.Message)
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}
