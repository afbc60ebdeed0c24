// Package splitwise reads Splitwise's CSV export of a group (or of a
// friend) into an exchange.Plan. See docs/import-formats.md for what it
// accepts and the rules it follows where the file is silent.
package splitwise

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/money"
)

// ReadOptions bound what ReadWith accepts; zero values take the exchange
// defaults.
type ReadOptions struct {
	MaxBytes int64
	MaxRows  int
	// MaxPeople bounds the member columns (at most exchange.MaxPeople) and
	// MaxParts the members one row may involve (no bound when zero): an
	// importer passes what it can write, so that a file of thousands of
	// columns is refused at its header or first wide row instead of being
	// read whole into memory first.
	MaxPeople int
	MaxParts  int
	// MaxCells bounds the members' cells that are not zero over all rows
	// (no bound when zero): a row of few bytes may name 90 people, and a
	// file of them would read to 50 times its size.
	MaxCells int
}

// fixedColumns is Date, Description, Category, Cost and Currency, in that
// order in every language; the members' columns follow.
const fixedColumns = 5

// maxPreamble is how many lines before the header a file may have (a
// friend's export starts with a "Note:" line and a blank one).
const maxPreamble = 5

// paymentCategories are the Category a Splitwise payment row has, by
// language (lower case). A payment this list misses is imported as an
// expense with the same effect on balances.
var paymentCategories = map[string]bool{
	"payment": true, "pago": true, "paiement": true, "zahlung": true, "pagamento": true,
	"betaling": true, "betalning": true, "płatność": true, "платеж": true, "платёж": true,
	"platba": true, "ödeme": true, "plata": true, "maksu": true, "pembayaran": true,
}

// Read reads a Splitwise CSV export with the default bounds.
func Read(r io.Reader) (*exchange.Plan, error) {
	return ReadWith(r, ReadOptions{})
}

// ReadWith reads a Splitwise CSV export. Any error is an
// *exchange.Problem naming the line and column.
func ReadWith(r io.Reader, opt ReadOptions) (*exchange.Plan, error) {
	if opt.MaxRows <= 0 {
		opt.MaxRows = exchange.DefaultMaxRows
	}
	if opt.MaxPeople <= 0 || opt.MaxPeople > exchange.MaxPeople {
		opt.MaxPeople = exchange.MaxPeople
	}
	data, err := exchange.ReadAll(r, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	rd := &reader{csv: cr, plan: &exchange.Plan{}, maxRows: opt.MaxRows, maxPeople: opt.MaxPeople, maxParts: opt.MaxParts, maxCells: opt.MaxCells, seen: exchange.RowKeys{}, totals: map[string]bool{}}
	if err := rd.read(); err != nil {
		return nil, exchange.AsProblem(err)
	}
	return rd.plan, nil
}

type reader struct {
	csv     *csv.Reader
	plan    *exchange.Plan
	header  []string
	names   []string // members, made unique
	maxRows int
	rows    int
	seen    exchange.RowKeys // row hash -> how many times seen
	totals  map[string]bool  // currencies with a Total balance row

	// maxPeople bounds the member columns, maxParts the members of one row,
	// maxCells the cells that are not zero over all rows (0: none); cells
	// counts those.
	maxPeople, maxParts, maxCells, cells int
}

// next returns the next record and the line it starts on, io.EOF at the end.
func (rd *reader) next() ([]string, int, error) {
	rec, err := rd.csv.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, pe.StartLine, exchange.Errorf(pe.Line, "", "the file is not valid CSV: %s", pe.Err)
		}
		return nil, 0, err
	}
	line, _ := rd.csv.FieldPos(0)
	for i := range rec {
		rec[i] = strings.TrimSpace(rec[i])
	}
	return rec, line, nil
}

func blank(rec []string) bool {
	for _, c := range rec {
		if c != "" {
			return false
		}
	}
	return true
}

func (rd *reader) read() error {
	if err := rd.readHeader(); err != nil {
		return err
	}
	for {
		rec, line, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		// Blocks are separated by blank lines or by lines of bare commas.
		if blank(rec) {
			continue
		}
		if len(rec) != len(rd.header) {
			return exchange.Errorf(line, "", "the row has %d cells but the header has %d columns", len(rec), len(rd.header))
		}
		if rec[2] == "" && rec[3] == "" {
			// Only the Total balance row leaves Category and Cost blank; its
			// Description is in the export's language, so it is not compared.
			if err := rd.total(rec, line); err != nil {
				return err
			}
			continue
		}
		if rd.rows++; rd.rows > rd.maxRows {
			return exchange.TooManyRows(line, rd.maxRows)
		}
		if err := rd.row(rec, line); err != nil {
			return err
		}
	}
	if rd.rows == 0 && len(rd.plan.Balances) == 0 {
		return exchange.Errorf(0, "", "the file has a header but no rows")
	}
	return nil
}

// readHeader finds the header: the first row of at least six cells, none
// empty, whose Cost title is not a number, after at most a few preamble
// lines of any content (a friend's export starts with a "Note:" line, in
// the export's language). The column titles are in that language too, so
// only their count and position matter.
func (rd *reader) readHeader() error {
	for i := 0; ; i++ {
		rec, line, err := rd.next()
		if err == io.EOF {
			return exchange.Errorf(0, "", "not a Splitwise export: no header row (Date,Description,Category,Cost,Currency, then one column per member, in any language)")
		}
		if err != nil {
			return err
		}
		if len(rec) > fixedColumns && !slices.Contains(rec, "") && !isNumber(rec[3]) {
			rd.header = rec
			return rd.people(line)
		}
		if i >= maxPreamble {
			return exchange.Errorf(line, "", "not a Splitwise export: no header row (Date,Description,Category,Cost,Currency, then one column per member, in any language) in the first lines")
		}
	}
}

// isNumber tells a data row's Cost from the header's title for it.
func isNumber(s string) bool {
	_, err := money.ParseDecimal(s)
	return err == nil
}

func (rd *reader) people(line int) error {
	if len(rd.header)-fixedColumns > rd.maxPeople {
		return exchange.TooManyPeopleOf(line, rd.maxPeople)
	}
	raw := make([]string, len(rd.header)-fixedColumns)
	for i, n := range rd.header[fixedColumns:] {
		raw[i] = text(n)
	}
	names, problems := exchange.UniqueNames(raw,
		func(int) int { return line }, func(i int) string { return rd.header[fixedColumns+i] })
	rd.names = names
	rd.plan.Problems = append(rd.plan.Problems, problems...)
	for _, n := range names {
		rd.plan.People = append(rd.plan.People, exchange.Person{Name: n})
	}
	return nil
}

// currency reads the row's Currency cell.
func (rd *reader) currency(rec []string, line int) (money.Currency, error) {
	c, err := money.LookupCurrency(rec[4])
	if err != nil {
		return money.Currency{}, exchange.Errorf(line, rd.header[4], "%q is not a currency code this server knows", rec[4])
	}
	return c, nil
}

// nets reads the members' cells: each is what the row does to that
// member's balance (paid − share); a blank cell is zero.
func (rd *reader) nets(rec []string, line int, c money.Currency) ([]money.Amount, error) {
	out := make([]money.Amount, len(rd.names))
	for i := range rd.names {
		cell := rec[fixedColumns+i]
		if cell == "" {
			out[i] = money.Zero(c)
			continue
		}
		a, err := exchange.ParseAmount(cell, c)
		if err != nil {
			return nil, exchange.Errorf(line, rd.header[fixedColumns+i], "%q is not an amount of %s: %v", cell, c.Code(), err)
		}
		out[i] = a
	}
	return out, nil
}

// total reads a Total balance row into the plan's Balances.
func (rd *reader) total(rec []string, line int) error {
	c, err := rd.currency(rec, line)
	if err != nil {
		return err
	}
	if rd.totals[c.Code()] {
		return exchange.Errorf(line, rd.header[4], "a second Total balance row for %s", c.Code())
	}
	rd.totals[c.Code()] = true
	nets, err := rd.nets(rec, line, c)
	if err != nil {
		return err
	}
	for i, a := range nets {
		rd.plan.Balances = append(rd.plan.Balances, exchange.Balance{Name: rd.names[i], Amount: a})
	}
	return nil
}

// key identifies a row by a hash of its cells and its place among rows
// with the same cells, so the same file always gives the same keys.
func (rd *reader) key(rec []string) string {
	return rd.seen.Next("sw-", []byte(strings.Join(rec, "\x1f")))
}

// row reads an expense or payment row.
func (rd *reader) row(rec []string, line int) error {
	spent, err := time.Parse(time.DateOnly, rec[0])
	if err != nil {
		return exchange.Errorf(line, rd.header[0], "%q is not a date (YYYY-MM-DD)", rec[0])
	}
	c, err := rd.currency(rec, line)
	if err != nil {
		return err
	}
	cost, err := exchange.ParseAmount(rec[3], c)
	if err != nil {
		return exchange.Errorf(line, rd.header[3], "%q is not an amount of %s: %v", rec[3], c.Code(), err)
	}
	nets, err := rd.nets(rec, line, c)
	if err != nil {
		return err
	}
	if tooLarge(cost) {
		return exchange.Errorf(line, rd.header[3], "%s %s is too large an amount", cost, c.Code())
	}
	sum := money.Sum(c, nets...)
	if !sum.IsZero() {
		return exchange.Errorf(line, "", "the members' cells add up to %s %s, not zero: what some paid must be what others owe", sum, c.Code())
	}
	key := rd.key(rec)
	var pos, neg []int
	for i, a := range nets {
		switch a.Sign() {
		case 1:
			pos = append(pos, i)
		case -1:
			neg = append(neg, i)
		}
	}
	if rd.maxParts > 0 && len(pos)+len(neg) > rd.maxParts {
		return exchange.Errorf(line, "", "the row involves %d members; one expense may involve at most %d", len(pos)+len(neg), rd.maxParts)
	}
	if rd.cells += len(pos) + len(neg); rd.maxCells > 0 && rd.cells > rd.maxCells {
		return exchange.Errorf(line, "", "the rows involve more than %d members in all, the most one import writes", rd.maxCells)
	}
	if len(pos) == 0 {
		// Someone paid for themselves alone, or the row is a zero "settle
		// all balances": it moves no balance, and the file does not say who
		// paid, so it is not an expense of the group.
		if !cost.IsZero() || rec[1] != "" {
			rd.plan.Problems = append(rd.plan.Problems, exchange.Warnf(line, rd.header[3],
				"%q (%s %s) changes nobody's balance (every member's cell is zero): it is not imported as an expense", rec[1], cost, c.Code()))
		}
		return nil
	}
	if paymentCategories[strings.ToLower(rec[2])] {
		if len(pos) == 1 && len(neg) == 1 && !tooLarge(nets[pos[0]]) {
			rd.plan.Settlements = append(rd.plan.Settlements, exchange.Settlement{
				Line: line, Key: key, From: rd.names[pos[0]], To: rd.names[neg[0]],
				Amount: nets[pos[0]], CreatedAt: spent, Status: "completed",
			})
			return nil
		}
		rd.plan.Problems = append(rd.plan.Problems, exchange.Warnf(line, rd.header[2],
			"a payment between more than two people: imported as an expense with the same effect on balances"))
	}
	e, warn := rebuild(cost, nets, pos, rd.names)
	if tooLarge(e.Amount) {
		return exchange.Errorf(line, rd.header[3], "%s %s is too large an amount", e.Amount, c.Code())
	}
	if warn != "" {
		rd.plan.Problems = append(rd.plan.Problems, exchange.Warnf(line, rd.header[3], "%s", warn))
	}
	e.Line, e.Key, e.Description, e.Category, e.SpentAt = line, key, text(rec[1]), text(rec[2]), spent
	rd.plan.Expenses = append(rd.plan.Expenses, e)
	return nil
}

// rebuild picks payers and shares that reproduce every member's net
// exactly, keeping cost as the amount:
//   - each member with a negative net owes −net and paid nothing;
//   - the payers are the members with a positive net;
//   - the part of the cost the nets do not explain (cost − the sum of the
//     positive nets: what the payers spent on themselves) is the payers'
//     own share, divided in proportion to their nets by largest remainder
//     (ties to the earlier column), and each payer paid net + share.
//
// With one payer this is the plain reading: they paid the cost. When the
// cost is below the positive nets (no split can give them), the amount is
// the sum of the positive nets instead, with a warning.
func rebuild(cost money.Amount, nets []money.Amount, pos []int, names []string) (exchange.Expense, string) {
	c := cost.Currency()
	owed := money.Zero(c)
	weights := make([]money.Decimal, len(pos))
	for k, i := range pos {
		owed = owed.Add(nets[i])
		weights[k] = nets[i].Decimal()
	}
	amount, warn := cost, ""
	if cost.Cmp(owed) < 0 {
		amount = owed
		warn = "the cost " + cost.String() + " " + c.Code() + " is less than the members' cells move; the expense is " + owed.String() + " " + c.Code() + ", which gives every member's cell exactly"
	}
	own, _ := money.SplitWeighted(amount.Sub(owed), weights) // weights are positive
	e := exchange.Expense{Amount: amount, SplitType: exchange.SplitExact}
	for k, i := range pos {
		e.Payers = append(e.Payers, exchange.Part{Name: names[i], Amount: nets[i].Add(own[k])})
	}
	// Splits in column order, zero shares left out.
	payer := make(map[int]int, len(pos))
	for k, i := range pos {
		payer[i] = k
	}
	for i := range nets {
		var share money.Amount
		if k, ok := payer[i]; ok {
			share = own[k]
		} else if nets[i].Sign() < 0 {
			share = nets[i].Neg()
		} else {
			continue
		}
		if !share.IsZero() {
			e.Splits = append(e.Splits, exchange.Part{Name: names[i], Amount: share})
		}
	}
	return e, warn
}

// text undoes the neutralising of a text cell against formula injection
// that OWASP advises and Fracti's own export does: a single quote before a
// cell that begins with =, +, -, @, a tab or a carriage return.
func text(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune(exchange.FormulaStart, rune(s[1])) {
		return s[1:]
	}
	return s
}

// tooLarge reports an amount beyond what Fracti stores (money.MaxMajorUnits).
func tooLarge(a money.Amount) bool {
	if a.Sign() < 0 {
		a = a.Neg()
	}
	return errors.Is(money.ValidatePositive(a), money.ErrTooLarge)
}
