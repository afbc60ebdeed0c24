package fractijson

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/money"
)

// ReadOptions bound what ReadWith accepts; zero values take the exchange
// defaults.
type ReadOptions struct {
	MaxBytes int64
	// MaxRows bounds expenses, settlements and comments together.
	MaxRows int
}

// Read reads a Fracti JSON export into a Plan with the default bounds.
func Read(r io.Reader) (*exchange.Plan, error) {
	return ReadWith(r, ReadOptions{})
}

// splitTypes maps the document's split types to the store's.
var splitTypes = map[string]exchange.SplitType{
	"EQUAL": exchange.SplitEqual, "EXACT": exchange.SplitExact,
	"PERCENTAGE": exchange.SplitPercentage, "SHARES": exchange.SplitShares,
}

// statuses maps the document's settlement statuses to the store's.
var statuses = map[string]string{
	"PENDING": "pending", "SENT": "sent", "COMPLETED": "completed", "FAILED": "failed",
}

// ReadWith reads a Fracti JSON export: every version up to Version, every
// amount checked against its currency, payers and splits adding up to the
// amount, every member id known. Any error is an *exchange.Problem at the
// line where the element starts, with its path
// ("expenses[3].payers[0].amount").
func ReadWith(r io.Reader, opt ReadOptions) (*exchange.Plan, error) {
	if opt.MaxRows <= 0 {
		opt.MaxRows = exchange.DefaultMaxRows
	}
	data, lines, err := exchange.ReadJSON(r, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	// The version first, alone, so that a future document whose other
	// fields changed shape is refused for its version, not for a type.
	var head struct {
		Format        string `json:"format"`
		FormatVersion int    `json:"formatVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, lines.Problem(err)
	}
	if head.Format != Format {
		return nil, lines.Errorf("format", "the file is not a Fracti group export (format %q, expected %q)", head.Format, Format)
	}
	if head.FormatVersion < 1 {
		return nil, lines.Errorf("formatVersion", "the file has no formatVersion (1 to %d)", Version)
	}
	if head.FormatVersion > Version {
		return nil, lines.Errorf("formatVersion", "formatVersion %d is not one this server reads (1 to %d): a newer Fracti wrote it; import it there, or export again from this one", head.FormatVersion, Version)
	}
	var doc Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, lines.Problem(err)
	}
	if n := len(doc.Expenses) + len(doc.Settlements) + len(doc.Comments); n > opt.MaxRows {
		return nil, exchange.TooManyRows(0, opt.MaxRows)
	}
	d := &docReader{lines: lines, doc: &doc, plan: &exchange.Plan{Title: strings.TrimSpace(doc.Group.Title)}, names: map[string]string{}}
	if err := d.read(); err != nil {
		return nil, err
	}
	return d.plan, nil
}

type docReader struct {
	lines *exchange.JSONLines
	doc   *Document
	plan  *exchange.Plan
	names map[string]string // member id -> unique name
}

func (d *docReader) read() error {
	if c := d.doc.Group.Currency; c != "" {
		cur, err := d.currency(c, "group.currency")
		if err != nil {
			return err
		}
		d.plan.Currency = cur.Code()
	}
	for _, step := range []func() error{d.members, d.expenses, d.settlements, d.comments, d.balances} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (d *docReader) members() error {
	people := make([]exchange.Person, len(d.doc.Members))
	for i, m := range d.doc.Members {
		people[i] = exchange.Person{Name: m.Name, Key: m.ID, Placeholder: m.Placeholder, Left: m.LeftAt != nil}
	}
	var err error
	d.names, err = d.lines.People(d.plan, "members", people)
	return err
}

// member is the name of the member id at path.
func (d *docReader) member(id, path string) (string, error) {
	n, ok := d.names[id]
	if !ok || id == "" {
		return "", d.lines.Errorf(path, "%q is not one of the document's members", id)
	}
	return n, nil
}

// currency looks up the code at path.
func (d *docReader) currency(code, path string) (money.Currency, error) {
	c, err := money.LookupCurrency(code)
	if err != nil {
		return money.Currency{}, d.lines.Errorf(path, "%q is not a currency code this server knows", code)
	}
	return c, nil
}

// amount parses s at path as an amount of c, written with exactly c's
// decimals as the exporter writes it.
func (d *docReader) amount(s string, c money.Currency, path string, positive bool) (money.Amount, error) {
	a, err := money.ParseAmount(s, c)
	if err == nil && positive {
		err = money.ValidatePositive(a)
	}
	if err == nil && !positive && a.Sign() < 0 {
		err = money.ErrNegative
	}
	if err != nil {
		return money.Amount{}, d.lines.Errorf(path, "%q is not a valid amount of %s: %v", s, c.Code(), err)
	}
	return a, nil
}

func (d *docReader) decimal(s, path string) (*money.Decimal, error) {
	if s == "" {
		return nil, nil
	}
	v, err := money.ParseDecimal(s)
	if err != nil || v.Sign() < 0 {
		return nil, d.lines.Errorf(path, "%q is not a number of zero or more", s)
	}
	return &v, nil
}

func (d *docReader) expenses() error {
	keys := make(map[string]bool, len(d.doc.Expenses))
	for i, x := range d.doc.Expenses {
		path := fmt.Sprintf("expenses[%d]", i)
		if err := d.key(keys, x.ID, path, "expense"); err != nil {
			return err
		}
		amount, err := d.money(x.Amount, x.Currency, path+".amount", path+".currency")
		if err != nil {
			return err
		}
		st, ok := splitTypes[x.SplitType]
		if !ok {
			return d.lines.Errorf(path+".splitType", "%q is not a split type (EQUAL, EXACT, PERCENTAGE or SHARES)", x.SplitType)
		}
		if x.SpentAt.IsZero() {
			return d.lines.Errorf(path+".spentAt", "the expense has no spentAt")
		}
		e := exchange.Expense{
			Line: d.lines.Line(path), Key: x.ID, Description: x.Description, Category: x.Category,
			SpentAt: x.SpentAt, CreatedAt: x.CreatedAt, Amount: amount, SplitType: st,
		}
		if e.Payers, err = d.parts(amount, path+".payers", len(x.Payers), func(k int) (string, string, string, string) {
			return x.Payers[k].MemberID, x.Payers[k].Amount, "", ""
		}); err != nil {
			return err
		}
		if e.Splits, err = d.parts(amount, path+".splits", len(x.Splits), func(k int) (string, string, string, string) {
			s := x.Splits[k]
			return s.MemberID, s.Amount, s.Percentage, s.Shares
		}); err != nil {
			return err
		}
		if x.Conversion != nil {
			if e.Original, err = d.conversion(x.Conversion, path+".conversion"); err != nil {
				return err
			}
		}
		if err := d.itemized(&e, x, path); err != nil {
			return err
		}
		d.plan.Expenses = append(d.plan.Expenses, e)
	}
	return nil
}

// parts reads an expense's payers (positive) or splits (zero or more),
// each member once, adding up exactly to amount.
func (d *docReader) parts(amount money.Amount, path string, n int, at func(int) (id, amount, pct, shares string)) ([]exchange.Part, error) {
	if n == 0 {
		return nil, d.lines.Errorf(path, "the expense has no %s", path[strings.LastIndexByte(path, '.')+1:])
	}
	payers := strings.HasSuffix(path, ".payers")
	out := make([]exchange.Part, n)
	seen := make(map[string]bool, n)
	sum := money.Zero(amount.Currency())
	for k := range n {
		id, s, pct, shares := at(k)
		p := fmt.Sprintf("%s[%d]", path, k)
		name, err := d.member(id, p+".memberId")
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, d.lines.Errorf(p+".memberId", "member %q appears twice", id)
		}
		seen[id] = true
		a, err := d.amount(s, amount.Currency(), p+".amount", payers)
		if err != nil {
			return nil, err
		}
		sum = sum.Add(a)
		out[k] = exchange.Part{Name: name, Amount: a}
		if out[k].Percentage, err = d.decimal(pct, p+".percentage"); err != nil {
			return nil, err
		}
		if out[k].Shares, err = d.decimal(shares, p+".shares"); err != nil {
			return nil, err
		}
	}
	if sum.Cmp(amount) != 0 {
		return nil, d.lines.Errorf(path, "they add up to %s but the amount is %s %s", sum, amount, amount.Currency().Code())
	}
	return out, nil
}

func (d *docReader) conversion(c *Conversion, path string) (*exchange.Original, error) {
	o, err := d.ratedMoney(c.OriginalAmount, c.OriginalCurrency, c.Rate, path+".originalAmount", path+".originalCurrency", path+".rate")
	if err != nil {
		return nil, err
	}
	o.RateSource, o.RateDate = c.RateSource, c.RateDate
	return o, nil
}

// rated reads an amount in another currency and its rate.
func (d *docReader) ratedMoney(amount, code, rate, amountPath, codePath, ratePath string) (*exchange.Original, error) {
	a, err := d.money(amount, code, amountPath, codePath)
	if err != nil {
		return nil, err
	}
	return d.rated(a, rate, ratePath)
}

// rated is a with the rate beside it.
func (d *docReader) rated(a money.Amount, rate, ratePath string) (*exchange.Original, error) {
	r, err := money.ParseRate(rate)
	if err != nil {
		return nil, d.lines.Errorf(ratePath, "%q is not a rate: %v", rate, err)
	}
	return &exchange.Original{Amount: a, Rate: r}, nil
}

// key checks an element's id: present, and not seen before among its kind.
func (d *docReader) key(keys map[string]bool, id, path, kind string) error {
	if id == "" || keys[id] {
		return d.lines.Errorf(path+".id", "%s id %q is missing or appears twice", kind, id)
	}
	keys[id] = true
	return nil
}

// money reads a positive amount and its currency.
func (d *docReader) money(amount, code, amountPath, codePath string) (money.Amount, error) {
	c, err := d.currency(code, codePath)
	if err != nil {
		return money.Amount{}, err
	}
	return d.amount(amount, c, amountPath, true)
}

func (d *docReader) settlements() error {
	keys := make(map[string]bool, len(d.doc.Settlements))
	for i, x := range d.doc.Settlements {
		path := fmt.Sprintf("settlements[%d]", i)
		if err := d.key(keys, x.ID, path, "settlement"); err != nil {
			return err
		}
		from, err := d.member(x.From, path+".from")
		if err != nil {
			return err
		}
		to, err := d.member(x.To, path+".to")
		if err != nil {
			return err
		}
		if x.From == x.To {
			return d.lines.Errorf(path+".to", "a settlement from %q to themselves", x.From)
		}
		amount, err := d.money(x.Amount, x.Currency, path+".amount", path+".currency")
		if err != nil {
			return err
		}
		status, ok := statuses[x.Status]
		if !ok {
			return d.lines.Errorf(path+".status", "%q is not a settlement status (PENDING, SENT, COMPLETED or FAILED)", x.Status)
		}
		s := exchange.Settlement{
			Line: d.lines.Line(path), Key: x.ID, From: from, To: to, Amount: amount,
			CreatedAt: x.CreatedAt, TxHash: x.TxHash, Status: status,
		}
		if c := x.Settles; c != nil {
			p := path + ".settles"
			if s.Settles, err = d.ratedMoney(c.Amount, c.Currency, c.Rate, p+".amount", p+".currency", p+".rate"); err != nil {
				return err
			}
			s.Settles.RateSource, s.Settles.RateDate = c.RateSource, c.RateDate
		}
		if len(x.Parts) > 0 && x.Settles != nil {
			return d.lines.Errorf(path+".parts", "a settlement has settles or parts, not both")
		}
		seen := map[string]bool{}
		for j, c := range x.Parts {
			p := fmt.Sprintf("%s.parts[%d]", path, j)
			cur, err := d.currency(c.Currency, p+".currency")
			if err != nil {
				return err
			}
			a, err := money.ParseAmount(c.Amount, cur) // negative: the other way
			if err == nil {
				magnitude := a
				if a.Sign() < 0 {
					magnitude = a.Neg()
				}
				err = money.ValidatePositive(magnitude)
			}
			if err != nil {
				return d.lines.Errorf(p+".amount", "%q is not a valid amount of %s: %v", c.Amount, cur.Code(), err)
			}
			part, err := d.rated(a, c.Rate, p+".rate")
			if err != nil {
				return err
			}
			if seen[c.Currency] || part.Amount.IsZero() {
				return d.lines.Errorf(p, "a part is a currency of its own, and not zero")
			}
			seen[c.Currency] = true
			part.RateSource, part.RateDate = c.RateSource, c.RateDate
			s.Parts = append(s.Parts, *part)
		}
		d.plan.Settlements = append(d.plan.Settlements, s)
	}
	return nil
}

func (d *docReader) comments() error {
	expenses := make(map[string]bool, len(d.doc.Expenses))
	for _, e := range d.doc.Expenses {
		expenses[e.ID] = true
	}
	keys := make(map[string]bool, len(d.doc.Comments))
	for i, x := range d.doc.Comments {
		path := fmt.Sprintf("comments[%d]", i)
		if err := d.key(keys, x.ID, path, "comment"); err != nil {
			return err
		}
		if !expenses[x.ExpenseID] {
			return d.lines.Errorf(path+".expenseId", "%q is not one of the document's expenses", x.ExpenseID)
		}
		author, err := d.member(x.AuthorID, path+".authorId")
		if err != nil {
			return err
		}
		c := exchange.Comment{
			Line: d.lines.Line(path), Key: x.ID, ExpenseKey: x.ExpenseID, Author: author,
			Body: x.Body, CreatedAt: x.CreatedAt, Deleted: x.DeletedAt != nil,
		}
		if c.Deleted {
			c.Body = ""
		} else if strings.TrimSpace(x.Body) == "" {
			return d.lines.Errorf(path+".body", "a comment that is not deleted has no body")
		}
		d.plan.Comments = append(d.plan.Comments, c)
	}
	return nil
}

func (d *docReader) balances() error {
	if d.doc.Balances == nil {
		return nil
	}
	d.plan.Balances = make([]exchange.Balance, 0, len(d.doc.Balances))
	for i, x := range d.doc.Balances {
		path := fmt.Sprintf("balances[%d]", i)
		name, err := d.member(x.MemberID, path+".memberId")
		if err != nil {
			return err
		}
		c, err := d.currency(x.Currency, path+".currency")
		if err != nil {
			return err
		}
		a, err := money.ParseAmount(x.Amount, c)
		if err != nil {
			return d.lines.Errorf(path+".amount", "%q is not an amount of %s: %v", x.Amount, c.Code(), err)
		}
		d.plan.Balances = append(d.plan.Balances, exchange.Balance{Name: name, Amount: a})
	}
	return nil
}

// adjustmentKinds maps the document's adjustment kinds to the store's.
var adjustmentKinds = map[string]exchange.AdjustmentKind{
	"TAX": exchange.AdjustmentTax, "TIP": exchange.AdjustmentTip,
	"SERVICE": exchange.AdjustmentService, "DISCOUNT": exchange.AdjustmentDiscount,
}

// itemized reads an itemized expense's items and adjustments into e: each
// line's shares add up to it and name members among the expense's splits,
// each adjustment comes to its appliedAmount, and dividing the bill again
// (money.SplitBill) gives exactly the expense's splits, so that an imported
// itemized expense is what the server itself would have recorded.
func (d *docReader) itemized(e *exchange.Expense, x Expense, path string) error {
	if len(x.Items) == 0 {
		if len(x.Adjustments) > 0 {
			return d.lines.Errorf(path+".adjustments", "adjustments are only for an itemized expense (with items)")
		}
		return nil
	}
	if e.SplitType != exchange.SplitExact {
		return d.lines.Errorf(path+".splitType", "an itemized expense is EXACT, not %s", x.SplitType)
	}
	if e.Original != nil {
		return d.lines.Errorf(path+".conversion", "an itemized expense is recorded in its own currency")
	}
	cur := e.Amount.Currency()
	person := make(map[string]int, len(x.Splits))
	for i, s := range x.Splits {
		person[s.MemberID] = i
	}
	lines := make([]money.BillLine, len(x.Items))
	for i, it := range x.Items {
		p := fmt.Sprintf("%s.items[%d]", path, i)
		amount, err := d.amount(it.Amount, cur, p+".amount", true)
		if err != nil {
			return err
		}
		st, ok := splitTypes[it.SplitType]
		if !ok {
			return d.lines.Errorf(p+".splitType", "%q is not a split type (EQUAL, EXACT, PERCENTAGE or SHARES)", it.SplitType)
		}
		shares, err := d.parts(amount, p+".shares", len(it.Shares), func(k int) (string, string, string, string) {
			s := it.Shares[k]
			return s.MemberID, s.Amount, s.Percentage, s.Shares
		})
		if err != nil {
			return err
		}
		line := money.BillLine{Amount: amount}
		for k, s := range it.Shares {
			n, ok := person[s.MemberID]
			if !ok {
				return d.lines.Errorf(fmt.Sprintf("%s.shares[%d].memberId", p, k), "%q is not among the expense's splits", s.MemberID)
			}
			line.People, line.Parts = append(line.People, n), append(line.Parts, shares[k].Amount)
		}
		lines[i] = line
		e.Items = append(e.Items, exchange.Item{Description: it.Description, Amount: amount, SplitType: st, Shares: shares})
	}
	adjustments := make([]money.BillAdjustment, len(x.Adjustments))
	for i, a := range x.Adjustments {
		p := fmt.Sprintf("%s.adjustments[%d]", path, i)
		kind, ok := adjustmentKinds[a.Kind]
		if !ok {
			return d.lines.Errorf(p+".kind", "%q is not an adjustment kind (TAX, TIP, SERVICE or DISCOUNT)", a.Kind)
		}
		adj := exchange.Adjustment{Kind: kind}
		ba := money.BillAdjustment{Discount: kind == exchange.AdjustmentDiscount}
		if (a.Amount == "") == (a.Percentage == "") {
			return d.lines.Errorf(p, "an adjustment has either an amount or a percentage")
		}
		if a.Amount != "" {
			v, err := d.amount(a.Amount, cur, p+".amount", true)
			if err != nil {
				return err
			}
			adj.Amount, ba.Amount = &v, &v
		} else {
			pct, err := d.decimal(a.Percentage, p+".percentage")
			if err != nil {
				return err
			}
			adj.Percentage, ba.Percent = pct, pct
		}
		applied, err := money.ParseAmount(a.AppliedAmount, cur)
		if err != nil {
			return d.lines.Errorf(p+".appliedAmount", "%q is not an amount of %s: %v", a.AppliedAmount, cur.Code(), err)
		}
		adj.Applied, adjustments[i] = applied, ba
		e.Adjustments = append(e.Adjustments, adj)
	}
	b, err := money.SplitBill(cur, len(x.Splits), lines, adjustments)
	if err != nil {
		return d.lines.Errorf(path+".items", "%v", err)
	}
	for i, a := range e.Adjustments {
		if b.Adjustments[i].Cmp(a.Applied) != 0 {
			return d.lines.Errorf(fmt.Sprintf("%s.adjustments[%d].appliedAmount", path, i), "is %s but the adjustment comes to %s", a.Applied, b.Adjustments[i])
		}
	}
	if b.Total.Cmp(e.Amount) != 0 {
		return d.lines.Errorf(path+".items", "the items and adjustments come to %s but the amount is %s", b.Total, e.Amount)
	}
	for i, s := range e.Splits {
		if b.Shares[i].Cmp(s.Amount) != 0 {
			return d.lines.Errorf(fmt.Sprintf("%s.splits[%d].amount", path, i), "is %s but the items and adjustments come to %s for this member", s.Amount, b.Shares[i])
		}
	}
	return nil
}
