package export

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fracti/api/exchange/fractijson"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// JSON writes the group as a fractijson.Document, its fields in the
// Document's order, each array page by page: members (every membership:
// placeholders and members who left included), expenses and settlements
// in the order they were recorded, the comments of those expenses (by
// expense, oldest first; a deleted comment as a tombstone), then balances.
func (x Export) JSON(ctx context.Context, w io.Writer) error {
	o := newOut(w, x.Flush)
	g := x.Group
	o.str(`{"format":`)
	o.value(fractijson.Format)
	o.str(`,"formatVersion":`)
	o.value(fractijson.Version)
	o.str(`,"exportedAt":`)
	o.value(utcMillis(x.Now))
	o.str(`,"group":`)
	// Nothing is flushed before the first page is read: a table that
	// cannot answer at all is still a clean 503.
	o.value(fractijson.Group{ID: g.ID, Title: g.Title, Currency: g.Currency.Code(), TimeZone: g.TimeZone, CreatedAt: utcMillis(g.CreatedAt)})
	if err := jsonArray(ctx, o, "members", x.Store.ListMemberships, g.ID, jsonMember, nil); err != nil {
		return err
	}
	nets := netsOf{}
	expense := func(e *store.Expense) fractijson.Expense { nets.expense(e); return jsonExpense(e) }
	if err := jsonArray(ctx, o, "expenses", x.Store.ListExpensesOldestFirst, g.ID, expense, nil); err != nil {
		return err
	}
	settlement := func(st *store.Settlement) fractijson.Settlement { nets.settlement(st); return jsonSettlement(st) }
	if err := jsonArray(ctx, o, "settlements", x.Store.ListSettlementsOldestFirst, g.ID, settlement, nil); err != nil {
		return err
	}
	if err := jsonArray(ctx, o, "comments", x.Store.ListGroupComments, g.ID, jsonComment, x.onLiveExpenses); err != nil {
		return err
	}
	o.str(`,"balances":`)
	o.value(nets.balances())
	o.str("}\n")
	return o.page()
}

// value writes v as JSON.
func (o *out) value(v any) {
	if o.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		o.err = err
		return
	}
	o.write(b)
}

// jsonArray writes `,"name":[...]` with the items of a list, page by page;
// keep, when set, says which items of a page go in.
func jsonArray[T, J any](ctx context.Context, o *out, name string, list func(context.Context, string, store.PageArgs) (store.Page[T], error),
	groupID string, conv func(*T) J, keep func(context.Context, []T) (func(*T) bool, error)) error {
	o.str(`,"` + name + `":[`)
	first := true
	err := eachPage(ctx, list, groupID, func(items []T) error {
		kept := func(*T) bool { return true }
		if keep != nil {
			var err error
			if kept, err = keep(ctx, items); err != nil {
				return err
			}
		}
		for i := range items {
			if !kept(&items[i]) {
				continue
			}
			if !first {
				o.str(",")
			}
			first = false
			o.value(conv(&items[i]))
		}
		return o.page()
	})
	if err != nil {
		return err
	}
	o.str("]")
	return o.err
}

// onLiveExpenses keeps the comments of expenses the file holds: a deleted
// expense keeps its comments (they show again if it is restored), but the
// file has no such expense for them to name. It reads the page's expenses
// by id (one index lookup each, together), so that memory stays a page's.
func (x Export) onLiveExpenses(ctx context.Context, comments []store.Comment) (func(*store.Comment) bool, error) {
	var refs []store.ExpenseRef
	seen := map[string]bool{}
	for _, c := range comments {
		if !seen[c.ExpenseID] {
			seen[c.ExpenseID] = true
			refs = append(refs, store.ExpenseRef{ID: c.ExpenseID})
		}
	}
	es, err := x.Store.GetExpenses(ctx, refs)
	if err != nil {
		return nil, err
	}
	live := make(map[string]bool, len(es))
	for _, e := range es {
		if e != nil && e.DeletedAt == nil && e.GroupID == x.Group.ID {
			live[e.ID] = true
		}
	}
	return func(c *store.Comment) bool { return live[c.ExpenseID] }, nil
}

// utcMillis is t as the document writes times: UTC, to the millisecond.
func utcMillis(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func optionalTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utcMillis(*t)
	return &u
}

func jsonMember(m *store.Member) fractijson.Member {
	return fractijson.Member{
		ID: m.UserID, Name: m.Name, Username: m.Username, Placeholder: m.Placeholder, Wallet: m.Wallet,
		JoinedAt: utcMillis(m.JoinedAt), LeftAt: optionalTime(m.LeftAt), ClaimedBy: m.ClaimedBy,
	}
}

func jsonExpense(e *store.Expense) fractijson.Expense {
	out := fractijson.Expense{
		ID: e.ID, Description: e.Description, Category: e.Category,
		Amount: e.Amount.String(), Currency: e.Currency().Code(),
		SplitType: strings.ToUpper(string(e.SplitType)),
		SpentAt:   utcMillis(e.SpentAt), CreatedAt: utcMillis(e.CreatedAt), CreatedBy: e.CreatedBy,
		Payers: make([]fractijson.Payer, len(e.Payers)), Splits: make([]fractijson.Split, len(e.Splits)),
		SeriesID: e.SeriesID,
	}
	for i, p := range e.Payers {
		out.Payers[i] = fractijson.Payer{MemberID: p.UserID, Amount: p.Amount.String()}
	}
	for i, sp := range e.Splits {
		s := fractijson.Split{MemberID: sp.UserID, Amount: sp.Amount.String()}
		if sp.Percentage != nil {
			s.Percentage = sp.Percentage.String()
		}
		if sp.Shares != nil {
			s.Shares = sp.Shares.String()
		}
		out.Splits[i] = s
	}
	for _, r := range e.Receipts {
		out.Receipts = append(out.Receipts, fractijson.Receipt{
			ID: r.ID, Key: store.ReceiptObjectKey(e.GroupID, e.ID, r.ID), File: ReceiptFile(&r),
			ContentType: r.ContentType, Size: r.Size, UploadedBy: r.UploadedBy, UploadedAt: utcMillis(r.UploadedAt),
		})
	}
	if c := e.Conversion; c != nil {
		out.Conversion = &fractijson.Conversion{
			OriginalAmount: c.Original.String(), OriginalCurrency: c.Original.Currency().Code(),
			Rate: c.Rate.String(), RateSource: c.Source, RateDate: c.Date,
		}
	}
	for _, it := range e.Items {
		item := fractijson.Item{Description: it.Description, Amount: it.Amount.String(), SplitType: strings.ToUpper(string(it.SplitType))}
		for _, sh := range it.Shares {
			s := fractijson.Split{MemberID: e.Splits[sh.Person].UserID, Amount: sh.Amount.String()}
			if sh.Percentage != nil {
				s.Percentage = sh.Percentage.String()
			}
			if sh.Shares != nil {
				s.Shares = sh.Shares.String()
			}
			item.Shares = append(item.Shares, s)
		}
		out.Items = append(out.Items, item)
	}
	for _, a := range e.Adjustments {
		adj := fractijson.Adjustment{Kind: a.Kind.AdjustmentName(), AppliedAmount: a.AppliedAmount.String()}
		if a.Amount != nil {
			adj.Amount = a.Amount.String()
		}
		if a.Percentage != nil {
			adj.Percentage = a.Percentage.String()
		}
		out.Adjustments = append(out.Adjustments, adj)
	}
	return out
}

func jsonSettlement(st *store.Settlement) fractijson.Settlement {
	out := fractijson.Settlement{
		ID: st.ID, From: st.FromUserID, To: st.ToUserID, Amount: st.Amount.String(), Currency: st.Currency().Code(),
		Status: strings.ToUpper(string(st.Status)), TxHash: st.TxHash,
		CreatedAt: utcMillis(st.CreatedAt), CompletedAt: optionalTime(st.CompletedAt),
	}
	if c := st.Settles; c != nil {
		out.Settles = jsonSettled(c)
	}
	for i := range st.Parts {
		out.Parts = append(out.Parts, *jsonSettled(&st.Parts[i]))
	}
	return out
}

func jsonSettled(c *store.SettledConversion) *fractijson.Settled {
	return &fractijson.Settled{
		Amount: c.Amount.String(), Currency: c.Amount.Currency().Code(),
		Rate: c.Rate.String(), RateSource: c.Source, RateDate: c.Date,
	}
}

func jsonComment(c *store.Comment) fractijson.Comment {
	out := fractijson.Comment{ID: c.ID, ExpenseID: c.ExpenseID, AuthorID: c.AuthorID, Body: c.Body,
		CreatedAt: utcMillis(c.CreatedAt), DeletedAt: optionalTime(c.DeletedAt)}
	if c.DeletedAt != nil {
		out.Body = "" // a tombstone says nothing of what was said
	}
	return out
}

// netsOf is each currency's member balances made by the expenses and
// completed settlements written so far (currency code -> member id -> net):
// the file's balances. They are the group's balances as the API gives them,
// unless the group changed while the file was read; the file then still
// adds up, as an import that checks itself against its balances requires.
type netsOf map[string]map[string]money.Amount

func (n netsOf) add(id string, a money.Amount) {
	code := a.Currency().Code()
	if n[code] == nil {
		n[code] = map[string]money.Amount{}
	}
	if v, ok := n[code][id]; ok {
		a = v.Add(a)
	}
	n[code][id] = a
}

// expense: each payer +paid, each member in the split −share.
func (n netsOf) expense(e *store.Expense) {
	for _, p := range e.Payers {
		n.add(p.UserID, p.Amount)
	}
	for _, sp := range e.Splits {
		n.add(sp.UserID, sp.Amount.Neg())
	}
}

// settlement: a completed one, +amount for the payer and −amount for the
// recipient, in what it settled; any other moves nothing.
func (n netsOf) settlement(st *store.Settlement) {
	if st.Status != store.SettlementCompleted {
		return
	}
	for _, a := range st.SettledParts() {
		n.add(st.FromUserID, a)
		n.add(st.ToUserID, a.Neg())
	}
}

// balances is every member's balance that is not zero, by currency then
// member id.
func (n netsOf) balances() []fractijson.Balance {
	out := []fractijson.Balance{}
	for _, code := range slices.Sorted(maps.Keys(n)) {
		for _, id := range slices.Sorted(maps.Keys(n[code])) {
			if a := n[code][id]; !a.IsZero() {
				out = append(out, fractijson.Balance{MemberID: id, Currency: code, Amount: a.String()})
			}
		}
	}
	return out
}
