// Package spliit reads Spliit's JSON export of a group
// (/groups/{id}/expenses/export/json) into an exchange.Plan. Spliit keeps
// amounts as integer minor units of the group's currency, one payer per
// expense, and the shares of each participant by split mode; it rounds
// shares by a rule its export does not carry, so ours (largest remainder,
// ties to the earlier participant in the file) may put a leftover cent on
// someone else. See docs/import-formats.md.
package spliit

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/money"
)

// Group is the export's document: the group with its participants and
// expenses, as Spliit's Prisma query selects them. Fields a version of
// Spliit does not write are left zero (the first exports had only
// currency, and no ids or dates on expenses).
type Group struct {
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	Currency     string        `json:"currency"`
	CurrencyCode *string       `json:"currencyCode"`
	Participants []Participant `json:"participants"`
	Expenses     []Expense     `json:"expenses"`
}

// Participant is a member of a Spliit group.
type Participant struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Expense is one Spliit expense (or reimbursement).
type Expense struct {
	ID               string          `json:"id,omitempty"`
	CreatedAt        *time.Time      `json:"createdAt,omitempty"`
	ExpenseDate      time.Time       `json:"expenseDate"`
	Title            string          `json:"title"`
	Category         *Category       `json:"category"`
	Amount           int64           `json:"amount"`
	OriginalAmount   *int64          `json:"originalAmount,omitempty"`
	OriginalCurrency *string         `json:"originalCurrency,omitempty"`
	ConversionRate   json.RawMessage `json:"conversionRate,omitempty"`
	PaidByID         string          `json:"paidById"`
	PaidFor          []PaidFor       `json:"paidFor"`
	IsReimbursement  bool            `json:"isReimbursement"`
	SplitMode        string          `json:"splitMode"`
	RecurrenceRule   *string         `json:"recurrenceRule,omitempty"`
	Notes            *string         `json:"notes,omitempty"`
}

// Category is an expense's Spliit category.
type Category struct {
	Grouping string `json:"grouping"`
	Name     string `json:"name"`
}

// PaidFor is one participant of an expense and their shares: ignored by
// EVENLY, a weight ×100 by BY_SHARES, basis points by BY_PERCENTAGE
// (summing to 10000), minor units by BY_AMOUNT.
type PaidFor struct {
	ParticipantID string `json:"participantId"`
	Shares        int64  `json:"shares"`
}

// ReadOptions are what ReadWith takes besides the file.
type ReadOptions struct {
	// Currency is the group's currency when the file cannot say it: an
	// older export has only a symbol, and some symbols ("$", "¥", "kr")
	// belong to several currencies.
	Currency string
	MaxBytes int64
	MaxRows  int
}

// Read reads a Spliit JSON export with the default bounds and no fallback
// currency.
func Read(r io.Reader) (*exchange.Plan, error) {
	return ReadWith(r, ReadOptions{})
}

// symbols are the currency symbols Spliit groups use that name one
// currency; "$", "¥", "kr" and the like name several and need a code.
var symbols = map[string]string{
	"€": "EUR", "£": "GBP", "₽": "RUB", "₹": "INR", "₩": "KRW", "₺": "TRY", "₴": "UAH",
	"₪": "ILS", "₫": "VND", "฿": "THB", "₱": "PHP", "₦": "NGN", "₲": "PYG", "₡": "CRC",
	"₸": "KZT", "₼": "AZN", "₾": "GEL", "zł": "PLN", "Kč": "CZK", "Ft": "HUF", "лв": "BGN",
	"R$": "BRL", "US$": "USD", "C$": "CAD", "CA$": "CAD", "A$": "AUD", "AU$": "AUD",
	"NZ$": "NZD", "HK$": "HKD", "S$": "SGD", "MX$": "MXN", "Fr.": "CHF", "руб": "RUB",
}

// spliitDigits are the currencies whose minor units Spliit counts with
// other decimals than ISO 4217 (its src/lib/currency-data.json): it keeps
// forints whole, where ISO has two decimals.
var spliitDigits = map[string]int{"HUF": 0}

// exportDigits is how many decimals Spliit's minor units have for a group
// with only a symbol: its "custom" currency always has two.
const exportDigits = 2

// minorDigits is how many decimals Spliit's minor units of c have: its own
// count (spliitDigits) where it differs from ISO 4217, else c's.
func minorDigits(c money.Currency) int {
	if d, ok := spliitDigits[c.Code()]; ok {
		return d
	}
	return c.Digits()
}

// ReadWith reads a Spliit JSON export. Any error is an *exchange.Problem at
// the line where the element starts, with its path.
func ReadWith(r io.Reader, opt ReadOptions) (*exchange.Plan, error) {
	if opt.MaxRows <= 0 {
		opt.MaxRows = exchange.DefaultMaxRows
	}
	data, lines, err := exchange.ReadJSON(r, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	var g Group
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, lines.Problem(err)
	}
	if len(g.Expenses) > opt.MaxRows {
		return nil, exchange.TooManyRows(lines.Line(fmt.Sprintf("expenses[%d]", opt.MaxRows)), opt.MaxRows)
	}
	rd := &reader{lines: lines, g: &g, plan: &exchange.Plan{Title: strings.TrimSpace(g.Name)}, names: map[string]string{}, seen: exchange.RowKeys{}}
	if err := rd.currency(opt.Currency); err != nil {
		return nil, err
	}
	if err := rd.participants(); err != nil {
		return nil, err
	}
	for i := range g.Expenses {
		if err := rd.expense(i); err != nil {
			return nil, err
		}
	}
	return rd.plan, nil
}

type reader struct {
	lines  *exchange.JSONLines
	g      *Group
	plan   *exchange.Plan
	cur    money.Currency
	digits int               // decimals of the file's minor units
	names  map[string]string // participant id -> unique name
	seen   exchange.RowKeys  // content hash -> times seen, for keys of old exports
}

// currency finds the group's currency: its code, else a symbol that names
// one currency, else the fallback the import gave.
func (rd *reader) currency(fallback string) error {
	if c := rd.g.CurrencyCode; c != nil && *c != "" {
		cur, err := money.LookupCurrency(*c)
		if err != nil {
			return rd.lines.Errorf("currencyCode", "%q is not a currency code this server knows", *c)
		}
		rd.cur, rd.digits = cur, minorDigits(cur)
		rd.plan.Currency = cur.Code()
		return nil
	}
	sym := strings.TrimSpace(rd.g.Currency)
	code, ok := symbols[sym]
	if !ok && len(sym) == 3 {
		// A code typed as the symbol ("CHF"); three other characters
		// ("kr.", "Rs.") leave it to the fallback.
		if c, err := money.LookupCurrency(sym); err == nil {
			code, ok = c.Code(), true
		}
	}
	if !ok || code == "" {
		code = fallback
	}
	cur, err := money.LookupCurrency(code)
	if err != nil {
		if fallback == "" {
			return rd.lines.Errorf("currency", "the group's currency is %q, which does not name one currency: give the import a currency code", rd.g.Currency)
		}
		return rd.lines.Errorf("currency", "neither the group's currency %q nor the import's %q is a currency code this server knows", rd.g.Currency, fallback)
	}
	rd.cur, rd.digits = cur, exportDigits
	rd.plan.Currency = cur.Code()
	return nil
}

func (rd *reader) participants() error {
	people := make([]exchange.Person, len(rd.g.Participants))
	for i, p := range rd.g.Participants {
		people[i] = exchange.Person{Name: p.Name, Key: p.ID}
	}
	var err error
	rd.names, err = rd.lines.People(rd.plan, "participants", people)
	return err
}

// amount converts minor units of the file into an amount of the group's
// currency, exactly or not at all.
func (rd *reader) amount(minor int64, path string) (money.Amount, error) {
	a, err := fromMinor(minor, rd.digits, rd.cur)
	if err != nil {
		return money.Amount{}, rd.lines.Errorf(path, "%s (%d minor units of Spliit's) is not a whole amount of %s", money.NewDecimal(minor, int32(rd.digits)), minor, rd.cur.Code())
	}
	return a, nil
}

// fromMinor is minor units with digits decimals as an amount of c, when
// that is exact.
func fromMinor(minor int64, digits int, c money.Currency) (money.Amount, error) {
	return exchange.ParseAmount(money.NewDecimal(minor, int32(digits)).String(), c)
}

// key is the expense's id, or for an export without ids a hash of its
// content and its place among identical expenses.
func (rd *reader) key(x *Expense) string {
	if x.ID != "" {
		return x.ID
	}
	b, _ := json.Marshal(x) // a struct of plain fields: cannot fail
	return rd.seen.Next("spliit-", b)
}

func (rd *reader) expense(i int) error {
	x := &rd.g.Expenses[i]
	path := fmt.Sprintf("expenses[%d]", i)
	line := rd.lines.Line(path)
	payer, ok := rd.names[x.PaidByID]
	if !ok {
		return rd.lines.Errorf(path+".paidById", "%q is not one of the group's participants", x.PaidByID)
	}
	if len(x.PaidFor) == 0 {
		return rd.lines.Errorf(path+".paidFor", "the expense is paid for nobody")
	}
	if x.RecurrenceRule != nil && *x.RecurrenceRule != "" && *x.RecurrenceRule != "NONE" {
		rd.plan.Problems = append(rd.plan.Problems, rd.lines.Warnf(path+".recurrenceRule",
			"%q repeats %s in Spliit: the expenses it already made are imported, but not the repetition (set it up again here)", x.Title, strings.ToLower(*x.RecurrenceRule)))
	}
	if x.Amount > maxMinor || x.Amount < -maxMinor {
		return rd.lines.Errorf(path+".amount", "%d is too large an amount", x.Amount)
	}
	if x.Amount == 0 {
		rd.plan.Problems = append(rd.plan.Problems, rd.lines.Warnf(path+".amount", "%q has no amount: not imported", x.Title))
		return nil
	}
	total, err := rd.amount(abs(x.Amount), path+".amount")
	if err == nil {
		err = money.ValidatePositive(total)
	}
	if err != nil {
		return rd.lines.Errorf(path+".amount", "%d is not an amount of %s Fracti can hold: %v", x.Amount, rd.cur.Code(), err)
	}
	split, err := rd.split(x, path, total)
	if err != nil {
		return err
	}
	key := rd.key(x)
	if x.IsReimbursement {
		rd.reimbursement(x, key, line, payer, split.Splits)
		return nil
	}
	split.Line, split.Key, split.Description, split.SpentAt, split.Amount, split.Payers =
		line, key, x.Title, x.ExpenseDate, total, []exchange.Part{{Name: payer, Amount: total}}
	if x.Category != nil {
		split.Category = x.Category.Name
	}
	if x.CreatedAt != nil {
		split.CreatedAt = *x.CreatedAt
	}
	if x.Amount < 0 {
		// An income: the payer received the amount for the participants.
		// The same balances come from an expense the participants paid (each
		// their share) entirely for the one who received it.
		shares := split.Splits
		split.Payers, split.Splits = nil, []exchange.Part{{Name: payer, Amount: total}}
		for _, s := range shares {
			if s.Amount.Sign() > 0 {
				split.Payers = append(split.Payers, exchange.Part{Name: s.Name, Amount: s.Amount})
			}
		}
		split.SplitType = exchange.SplitExact
		rd.plan.Problems = append(rd.plan.Problems, rd.lines.Warnf(path+".amount",
			"%q is an income of %s %s: imported as an expense the participants paid for %s, which moves the balances the same way", x.Title, total, rd.cur.Code(), payer))
	} else {
		split.Original = rd.original(x, total)
	}
	rd.plan.Expenses = append(rd.plan.Expenses, split)
	return nil
}

// reimbursement turns a Spliit reimbursement into settlements: from the
// payer to each participant of their share (a negative one runs the other
// way); a share of the payer's own moves nothing.
func (rd *reader) reimbursement(x *Expense, key string, line int, payer string, shares []exchange.Part) {
	n := 0
	for _, s := range shares {
		if s.Name == payer || s.Amount.IsZero() {
			continue
		}
		n++
		k := key
		if n > 1 {
			k = key + "#" + strconv.Itoa(n)
		}
		st := exchange.Settlement{Line: line, Key: k, From: payer, To: s.Name, Amount: s.Amount, CreatedAt: x.ExpenseDate, Status: "completed"}
		if x.Amount < 0 {
			st.From, st.To = s.Name, payer
		}
		rd.plan.Settlements = append(rd.plan.Settlements, st)
	}
}

// split computes each participant's share of total by the split mode, in
// the file's order, by largest remainder with ties to the earlier
// participant (money.Split*): Spliit's own rounding is not in the file.
func (rd *reader) split(x *Expense, path string, total money.Amount) (exchange.Expense, error) {
	e := exchange.Expense{}
	names := make([]string, len(x.PaidFor))
	weights := make([]money.Decimal, len(x.PaidFor))
	seen := map[string]bool{}
	var sum int64
	for k, p := range x.PaidFor {
		pp := fmt.Sprintf("%s.paidFor[%d]", path, k)
		n, ok := rd.names[p.ParticipantID]
		if !ok {
			return e, rd.lines.Errorf(pp+".participantId", "%q is not one of the group's participants", p.ParticipantID)
		}
		if seen[p.ParticipantID] {
			return e, rd.lines.Errorf(pp+".participantId", "participant %q appears twice", p.ParticipantID)
		}
		seen[p.ParticipantID] = true
		if x.SplitMode != "EVENLY" && x.SplitMode != "" {
			if p.Shares < 0 || p.Shares > maxMinor {
				return e, rd.lines.Errorf(pp+".shares", "shares %d are negative or too large", p.Shares)
			}
			// Bounded, so the sum cannot wrap around int64 and pass for
			// the expense's amount or 10000.
			if sum += p.Shares; sum > maxMinor {
				return e, rd.lines.Errorf(pp+".shares", "the shares add up to more than %d", int64(maxMinor))
			}
		}
		names[k] = n
	}
	var amounts []money.Amount
	var err error
	switch x.SplitMode {
	case "EVENLY", "":
		e.SplitType = exchange.SplitEqual
		amounts, err = money.SplitEqual(total, len(names))
	case "BY_SHARES":
		e.SplitType = exchange.SplitShares
		for k, p := range x.PaidFor {
			weights[k] = money.NewDecimal(p.Shares, 2)
		}
		amounts, err = money.SplitWeighted(total, weights)
	case "BY_PERCENTAGE":
		for k, p := range x.PaidFor {
			weights[k] = money.NewDecimal(p.Shares, 2)
		}
		if sum == 10000 {
			e.SplitType = exchange.SplitPercentage
			amounts, err = money.SplitPercentages(total, weights)
		} else {
			e.SplitType = exchange.SplitExact
			rd.plan.Problems = append(rd.plan.Problems, rd.lines.Warnf(path+".paidFor",
				"the percentages add up to %s, not 100: the amount is split in proportion to them", money.NewDecimal(sum, 2)))
			amounts, err = money.SplitWeighted(total, weights)
		}
	case "BY_AMOUNT":
		e.SplitType = exchange.SplitExact
		amounts = make([]money.Amount, len(names))
		if sum == abs(x.Amount) {
			for k, p := range x.PaidFor {
				if amounts[k], err = rd.amount(p.Shares, fmt.Sprintf("%s.paidFor[%d].shares", path, k)); err != nil {
					return e, err
				}
			}
		} else {
			rd.plan.Problems = append(rd.plan.Problems, rd.lines.Warnf(path+".paidFor",
				"the amounts add up to %d minor units, not the expense's %d: the amount is split in proportion to them", sum, abs(x.Amount)))
			for k, p := range x.PaidFor {
				weights[k] = money.NewDecimal(p.Shares, 0)
			}
			amounts, err = money.SplitWeighted(total, weights)
		}
	default:
		return e, rd.lines.Errorf(path+".splitMode", "%q is not a Spliit split mode (EVENLY, BY_SHARES, BY_PERCENTAGE or BY_AMOUNT)", x.SplitMode)
	}
	if err != nil {
		return e, rd.lines.Errorf(path+".paidFor", "the shares cannot split the amount: %v", err)
	}
	for k, n := range names {
		part := exchange.Part{Name: n, Amount: amounts[k]}
		switch e.SplitType {
		case exchange.SplitShares:
			part.Shares = &weights[k]
		case exchange.SplitPercentage:
			part.Percentage = &weights[k]
		}
		e.Splits = append(e.Splits, part)
	}
	return e, nil
}

// original is the amount as entered in another currency, kept only when
// the file's rate converts it into the expense's amount exactly: it is
// information in Spliit, and a rate we cannot vouch for is left out.
func (rd *reader) original(x *Expense, total money.Amount) *exchange.Original {
	if x.OriginalAmount == nil || x.OriginalCurrency == nil || len(x.ConversionRate) == 0 {
		return nil
	}
	cur, err := money.LookupCurrency(*x.OriginalCurrency)
	if err != nil || cur == rd.cur || *x.OriginalAmount <= 0 {
		return nil
	}
	var text string
	if json.Unmarshal(x.ConversionRate, &text) != nil {
		text = string(x.ConversionRate) // a JSON number
	}
	rate, err := money.ParseRate(text)
	if err != nil {
		return nil
	}
	orig, err := fromMinor(*x.OriginalAmount, minorDigits(cur), cur)
	if err != nil || money.Convert(orig, rate, rd.cur).Cmp(total) != 0 {
		return nil
	}
	return &exchange.Original{Amount: orig, Rate: rate, RateSource: "spliit"}
}

// maxMinor bounds amounts and shares so that their sums cannot overflow:
// 10^15 major units at two decimals.
const maxMinor = money.MaxMajorUnits * 100

// abs is |n|, for n within ±maxMinor.
func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
