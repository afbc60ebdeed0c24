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
	"github.com/fracti/api/store"
)

// JSON writes the group as a fractijson.Document, its fields in the
// Document's order, each array page by page: members (every membership:
// placeholders and members who left included), expenses and settlements
// in the order they were recorded, comments, then balances.
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
	if err := jsonArray(ctx, o, "members", x.Store.ListMemberships, g.ID, jsonMember); err != nil {
		return err
	}
	if err := jsonArray(ctx, o, "expenses", x.Store.ListExpensesOldestFirst, g.ID, jsonExpense); err != nil {
		return err
	}
	if err := jsonArray(ctx, o, "settlements", x.Store.ListSettlementsOldestFirst, g.ID, jsonSettlement); err != nil {
		return err
	}
	// TODO(comments): the comments of the group's expenses, page by page
	// through store.ListGroupComments, once the comments branch is merged.
	o.str(`,"comments":[]`)
	gb, err := x.balances(ctx)
	if err != nil {
		return err
	}
	o.str(`,"balances":`)
	o.value(jsonBalances(gb))
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

// jsonArray writes `,"name":[...]` with the items of a list, page by page.
func jsonArray[T, J any](ctx context.Context, o *out, name string, list func(context.Context, string, store.PageArgs) (store.Page[T], error),
	groupID string, conv func(*T) J) error {
	o.str(`,"` + name + `":[`)
	first := true
	err := eachPage(ctx, list, groupID, func(items []T) error {
		for i := range items {
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
	if c := e.Conversion; c != nil {
		out.Conversion = &fractijson.Conversion{
			OriginalAmount: c.Original.String(), OriginalCurrency: c.Original.Currency().Code(),
			Rate: c.Rate.String(), RateSource: c.Source, RateDate: c.Date,
		}
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
		out.Settles = &fractijson.Settled{
			Amount: c.Amount.String(), Currency: c.Amount.Currency().Code(),
			Rate: c.Rate.String(), RateSource: c.Source, RateDate: c.Date,
		}
	}
	return out
}

// jsonBalances is every member's balance that is not zero, by currency
// then member id.
func jsonBalances(gb *store.GroupBalances) []fractijson.Balance {
	out := []fractijson.Balance{}
	for _, b := range sortedBooks(gb) {
		nets := b.Nets()
		for _, id := range slices.Sorted(maps.Keys(nets)) {
			if n := nets[id]; !n.IsZero() {
				out = append(out, fractijson.Balance{MemberID: id, Currency: b.Currency.Code(), Amount: n.String()})
			}
		}
	}
	return out
}
