package export

import (
	"cmp"
	"context"
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// The CSV's fixed columns and the words Splitwise writes in them.
const (
	// bom starts the file: Excel reads a CSV as UTF-8 only after one
	// (without it, names in Cyrillic or with accents come out garbled);
	// readers of Splitwise's files skip it.
	bom             = "\uFEFF"
	paymentCategory = "Payment"
	totalBalance    = "Total balance"
	// blankCell is what Splitwise writes in the Category and Cost cells of
	// a Total balance row: a single space.
	blankCell = " "
)

// header is the CSV's header before the member columns.
var header = []string{"Date", "Description", "Category", "Cost", "Currency"}

// column is one member's column.
type column struct {
	id, name string
}

// CSV writes the group in Splitwise's group layout: the header (Date,
// Description, Category, Cost, Currency, then one column per member who
// has ever been one, placeholders and members who left included, in the
// order they joined, duplicate names made distinct), a blank line, one row
// per expense and per completed settlement in the order they were
// recorded, a blank line, and one Total balance row per currency. A
// member's cell is what the row does to their balance, in the row's
// currency: what they paid minus their share (a payment: +amount for the
// payer, −amount for the recipient). Text cells that a spreadsheet would
// take for a formula are neutralised (see Cell).
func (x Export) CSV(ctx context.Context, w io.Writer) error {
	cols, err := x.columns(ctx)
	if err != nil {
		return err
	}
	o := newOut(w, x.Flush)
	o.str(bom)
	cw := csv.NewWriter(o)
	row := make([]string, len(header)+len(cols))
	copy(row, header)
	for i, c := range cols {
		row[len(header)+i] = c.name
	}
	_ = cw.Write(row)
	_ = cw.Write(nil)
	index := make(map[string]int, len(cols))
	for i, c := range cols {
		index[c.id] = len(header) + i
	}
	rows := rowWriter{x: x, cw: cw, o: o, row: row, index: index, cols: cols}
	if err := rows.history(ctx); err != nil {
		return err
	}
	gb, err := x.balances(ctx)
	if err != nil {
		return err
	}
	_ = cw.Write(nil)
	if err := rows.totals(gb); err != nil {
		return err
	}
	return o.page()
}

// Cell neutralises a text cell against formula injection as OWASP advises:
// a cell that begins with =, +, -, @, a tab or a carriage return gets a
// single quote before it, so that a spreadsheet shows it as text. Numbers
// are written as they are and never pass through it.
func Cell(s string) string {
	if s != "" && strings.ContainsRune(exchange.FormulaStart, rune(s[0])) {
		return "'" + s
	}
	return s
}

// columns is one column per membership, in the order members joined (then
// by id), each name neutralised (Cell) and distinct: a second "Alex" is
// "Alex (2)".
func (x Export) columns(ctx context.Context) ([]column, error) {
	var members []store.Member
	err := eachPage(ctx, x.Store.ListMemberships, x.Group.ID, func(items []store.Member) error {
		members = append(members, items...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(members, func(a, b store.Member) int {
		return cmp.Or(a.JoinedAt.Compare(b.JoinedAt), cmp.Compare(a.UserID, b.UserID))
	})
	taken := make(map[string]bool, len(members))
	cols := make([]column, len(members))
	for i, m := range members {
		name := strings.TrimSpace(m.Name)
		if name == "" {
			name = "Member " + m.UserID
		}
		// Distinct as written: "=A" neutralised is the name "'=A".
		base := Cell(name)
		name = base
		for n := 2; taken[name]; n++ {
			name = base + " (" + strconv.Itoa(n) + ")"
		}
		taken[name] = true
		cols[i] = column{id: m.UserID, name: name}
	}
	return cols, nil
}

// rowWriter writes the CSV's rows into one reused row.
type rowWriter struct {
	x     Export
	cw    *csv.Writer
	o     *out
	row   []string
	index map[string]int // member id -> its cell in row
	cols  []column
	n     int // rows written since the last flush
	// sums is each currency's member cells summed over the rows written:
	// the Total balance rows, so that they always add up to the rows above
	// them, even when the group changed while the file was being read.
	sums map[money.Currency][]money.Amount
}

// add adds a to the member cell i's sum in a's currency.
func (r *rowWriter) add(i int, a money.Amount) {
	if r.sums == nil {
		r.sums = map[money.Currency][]money.Amount{}
	}
	cur := a.Currency()
	if r.sums[cur] == nil {
		r.sums[cur] = slices.Repeat([]money.Amount{money.Zero(cur)}, len(r.cols))
	}
	r.sums[cur][i-len(header)] = r.sums[cur][i-len(header)].Add(a)
}

// history writes the expenses and the completed settlements, merged in
// the order they were recorded, reading both lists a page at a time.
func (r *rowWriter) history(ctx context.Context) error {
	g := r.x.Group.ID
	expenses := &reader[store.Expense]{list: r.x.Store.ListExpensesOldestFirst, groupID: g}
	settlements := &reader[store.Settlement]{list: r.x.Store.ListSettlementsOldestFirst, groupID: g}
	for {
		e, err := expenses.peek(ctx)
		if err != nil {
			return err
		}
		st, err := settlements.peek(ctx)
		if err != nil {
			return err
		}
		switch {
		case e == nil && st == nil:
			return nil
		case st == nil || (e != nil && !st.CreatedAt.Before(e.CreatedAt)):
			r.expense(e)
			expenses.i++
		default:
			if st.Status == store.SettlementCompleted {
				r.payment(st)
			}
			settlements.i++
		}
		if err := r.written(); err != nil {
			return err
		}
	}
}

// written counts a row, and hands a page's worth of rows to the client.
func (r *rowWriter) written() error {
	if r.n++; r.n < store.MaxPageSize {
		return nil
	}
	r.n = 0
	r.cw.Flush()
	if err := r.cw.Error(); err != nil {
		return err
	}
	return r.o.page()
}

// start fills the row's fixed cells and zeroes every member's.
func (r *rowWriter) start(date, description, category, cost string, cur money.Currency) {
	copy(r.row, []string{date, description, category, cost, cur.Code()})
	zero := money.Zero(cur).String()
	for i := len(header); i < len(r.row); i++ {
		r.row[i] = zero
	}
}

func (r *rowWriter) expense(e *store.Expense) {
	r.start(e.SpentOn, Cell(e.Description), Cell(e.Category), e.Amount.String(), e.Currency())
	net := netsOf{}
	net.expense(e)
	for _, byID := range net { // the expense's one currency
		for id, a := range byID {
			if i, ok := r.index[id]; ok {
				r.row[i] = a.String()
				r.add(i, a)
			}
		}
	}
	_ = r.cw.Write(r.row)
}

// payment is a completed settlement's row, as Splitwise writes a payment:
// "<payer> paid <recipient>", in what it settled; a row per currency for a
// settlement of several parts, a negative part as paid the other way.
func (r *rowWriter) payment(st *store.Settlement) {
	when := st.CreatedAt
	if st.CompletedAt != nil {
		when = *st.CompletedAt
	}
	for _, a := range st.SettledParts() {
		fromID, fromName, toID, toName := st.FromUserID, st.FromUserName, st.ToUserID, st.ToUserName
		if a.Sign() < 0 {
			fromID, fromName, toID, toName, a = toID, toName, fromID, fromName, a.Neg()
		}
		from, to := r.name(fromID, fromName), r.name(toID, toName)
		r.start(when.In(r.x.location()).Format(store.DayLayout), Cell(from+" paid "+to), paymentCategory, a.String(), a.Currency())
		if i, ok := r.index[fromID]; ok {
			r.row[i] = a.String()
			r.add(i, a)
		}
		if i, ok := r.index[toID]; ok {
			r.row[i] = a.Neg().String()
			r.add(i, a.Neg())
		}
		_ = r.cw.Write(r.row)
	}
}

// name is a member's name as its column says it.
func (r *rowWriter) name(id, stored string) string {
	if i, ok := r.index[id]; ok {
		return r.cols[i-len(header)].name
	}
	return stored
}

// totals writes one Total balance row per currency the group has a book
// in or the rows name (its own currency when there is none), dated the day
// of the export: each member's balance, as the sum of their cells above.
// That is the group's balances as the API gives them when nothing changed
// while the file was read; when something did (a settlement completed
// after the settlements were read), the file still adds up and reads as
// the state it shows. They are written by hand: encoding/csv would quote
// the single spaces Splitwise leaves in Category and Cost, and nothing else
// in them needs quoting (a day, words, a currency code and numbers).
func (r *rowWriter) totals(gb *store.GroupBalances) error {
	r.cw.Flush()
	if err := r.cw.Error(); err != nil {
		return err
	}
	day := r.x.Now.In(r.x.location()).Format(store.DayLayout)
	var currencies []money.Currency
	for _, b := range gb.Books {
		currencies = append(currencies, b.Currency)
	}
	for cur := range r.sums {
		if !slices.Contains(currencies, cur) {
			currencies = append(currencies, cur)
		}
	}
	if len(currencies) == 0 {
		currencies = append(currencies, r.x.Group.Currency)
	}
	slices.SortFunc(currencies, func(a, b money.Currency) int { return cmp.Compare(a.Code(), b.Code()) })
	for _, cur := range currencies {
		r.start(day, totalBalance, blankCell, blankCell, cur)
		for i, n := range r.sums[cur] {
			r.row[len(header)+i] = n.String()
		}
		r.o.str(strings.Join(r.row, ",") + "\n")
	}
	return r.o.err
}

// reader reads a list one item at a time, a page at a time.
type reader[T any] struct {
	list    func(context.Context, string, store.PageArgs) (store.Page[T], error)
	groupID string
	after   string
	items   []T
	i       int
	done    bool
}

// peek is the next item, nil at the end of the list.
func (r *reader[T]) peek(ctx context.Context) (*T, error) {
	for r.i >= len(r.items) {
		if r.done {
			return nil, nil
		}
		if _, err := r.nextPage(ctx); err != nil {
			return nil, err
		}
	}
	return &r.items[r.i], nil
}

// nextPage reads the next page into items (done once the last is read).
func (r *reader[T]) nextPage(ctx context.Context) ([]T, error) {
	p, err := r.list(ctx, r.groupID, store.PageArgs{First: store.MaxPageSize, After: r.after})
	if err != nil {
		return nil, err
	}
	r.items, r.i = p.Items, 0
	r.done = !p.HasNext || len(p.Items) == 0
	if !r.done {
		r.after = p.Cursors[len(p.Items)-1].String()
	}
	return p.Items, nil
}
