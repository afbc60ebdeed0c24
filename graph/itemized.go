package graph

import (
	"errors"
	"fmt"

	"github.com/fracti/api/exchange"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// bill is an itemized expense's input checked and divided: the people its
// lines name, in order of first appearance (with the field that first
// names each), its lines and adjustments as stored, and the division.
type bill struct {
	people, fields []string
	items          []store.Item
	adjustments    []store.Adjustment
	split          money.BillSplit
}

// The input fields of an itemized expense, as errors name them.
const (
	itemsField       = "input.items"
	adjustmentsField = "input.adjustments"
)

// inputBill checks the items and adjustments of an expense input in cur and
// divides the bill (money.SplitBill); nil when the input has no items.
// Items replace splitType and splits, and adjustments need items.
func inputBill(cur money.Currency, in model.CreateExpenseInput) (*bill, error) {
	switch {
	case in.Items == nil && in.Adjustments == nil:
		return nil, nil
	case in.Items == nil:
		return nil, badInput(adjustmentsField, "adjustments are only for an itemized expense: give items too")
	case in.SplitType != nil:
		return nil, badInput("input.splitType", "give either items or splitType and splits, not both")
	case in.Splits != nil:
		return nil, badInput("input.splits", "give either items or splitType and splits, not both")
	case len(in.Items) == 0:
		return nil, badInput(itemsField, "list at least one line")
	case len(in.Items) > store.MaxItems:
		return nil, badInput(itemsField, "an expense has at most %d lines", store.MaxItems)
	case len(in.Adjustments) > store.MaxAdjustments:
		return nil, badInput(adjustmentsField, "an expense has at most %d adjustments", store.MaxAdjustments)
	}
	b := &bill{}
	index := map[string]int{}
	lines := make([]money.BillLine, len(in.Items))
	shares := 0
	for i, it := range in.Items {
		field := fmt.Sprintf("%s[%d]", itemsField, i)
		description, err := text(field+".description", it.Description, 1, store.MaxItemDescriptionLength)
		if err != nil {
			return nil, err
		}
		amount, err := positiveAmount(field+".amount", it.Amount, cur)
		if err != nil {
			return nil, err
		}
		splitType := store.SplitEqual
		if it.SplitType != nil {
			splitType = *it.SplitType
		}
		if shares += len(it.Splits); shares > store.MaxItemShares {
			return nil, badInput(field+".splits", "the lines of an expense have at most %d shares together", store.MaxItemShares)
		}
		parts, err := splitAmounts(amount, splitType, it.Splits, field+".splits")
		if err != nil {
			return nil, err
		}
		item := store.Item{Description: description, Amount: amount, SplitType: splitType}
		line := money.BillLine{Amount: amount, Parts: parts}
		for k, s := range it.Splits {
			p, ok := index[s.UserID]
			if !ok {
				p = len(b.people)
				index[s.UserID] = p
				b.people = append(b.people, s.UserID)
				b.fields = append(b.fields, fmt.Sprintf("%s.splits[%d].userId", field, k))
			}
			line.People = append(line.People, p)
			sh := store.ItemShare{Person: p, Amount: parts[k]}
			switch splitType {
			case store.SplitPercentage:
				sh.Percentage = s.Percentage
			case store.SplitShares:
				sh.Shares = s.Shares
			}
			item.Shares = append(item.Shares, sh)
		}
		lines[i] = line
		b.items = append(b.items, item)
	}
	if len(b.people) > store.MaxExpenseParticipants {
		return nil, participantLimitAt(itemsField)
	}
	adjustments := make([]money.BillAdjustment, len(in.Adjustments))
	for i, a := range in.Adjustments {
		field := fmt.Sprintf("%s[%d]", adjustmentsField, i)
		adj := store.Adjustment{Kind: a.Kind}
		ba := money.BillAdjustment{Discount: a.Kind == store.AdjustmentDiscount}
		switch {
		case (a.Amount == nil) == (a.Percentage == nil):
			return nil, badInput(field, "give either amount or percentage")
		case a.Amount != nil:
			v, err := positiveAmount(field+".amount", *a.Amount, cur)
			if err != nil {
				return nil, err
			}
			adj.Amount, ba.Amount = &v, &v
		default:
			p := *a.Percentage
			if err := weight(field+".percentage", p); err != nil {
				return nil, err
			}
			if p.Sign() <= 0 || p.Cmp(money.NewDecimal(100, 0)) > 0 {
				return nil, badInput(field+".percentage", "must be above 0 and at most 100")
			}
			adj.Percentage, ba.Percent = &p, &p
		}
		b.adjustments, adjustments[i] = append(b.adjustments, adj), ba
	}
	split, err := money.SplitBill(cur, len(b.people), lines, adjustments)
	if errors.Is(err, money.ErrBillTotal) {
		return nil, badInput(adjustmentsField, "%s", err.Error())
	}
	if err != nil {
		return nil, moneyError(itemsField, err)
	}
	if err := money.ValidatePositive(split.Total); err != nil {
		return nil, moneyError(itemsField, err)
	}
	for i := range b.adjustments {
		b.adjustments[i].AppliedAmount = split.Adjustments[i]
	}
	b.split = split
	return b, nil
}

// checkTotal checks that the bill comes to exactly the expense's amount.
func (b *bill) checkTotal(total money.Amount) error {
	if b.split.Total.Cmp(total) == 0 {
		return nil
	}
	return badInput("input.amount", "the items (%s) and adjustments come to %s but the amount is %s %s",
		b.split.Subtotal, b.split.Total, total, total.Currency())
}

// editedItems applies an edit's items and adjustments to c, the edit of e
// as a createExpense input, and reports whether the result is itemized:
// items given replace e's lines, adjustments given replace its
// adjustments, and what is not given is kept; items: [] stops itemizing
// (e's splits stay, as EXACT amounts, unless splits are given).
func editedItems(e *store.Expense, in model.UpdateExpenseInput, c *model.CreateExpenseInput) (bool, error) {
	stop := in.Items != nil && len(in.Items) == 0
	itemized := (len(e.Items) > 0 || in.Items != nil) && !stop
	switch {
	case stop && len(in.Adjustments) > 0:
		return false, badInput(adjustmentsField, "an expense without items has no adjustments")
	case stop || (!itemized && in.Adjustments == nil):
		return false, nil
	case !itemized:
		return false, badInput(adjustmentsField, "adjustments are only for an itemized expense: give items too")
	case in.Splits != nil || in.SplitType != nil:
		return false, badInput("input.splits", "the expense is itemized: its splits come from its items (give items: [] to divide it by splits instead)")
	}
	c.SplitType, c.Splits = nil, nil
	c.Items, c.Adjustments = in.Items, in.Adjustments
	if c.Items == nil {
		c.Items = itemInputs(e)
	}
	if c.Adjustments == nil {
		c.Adjustments = adjustmentInputs(e)
	}
	return true, nil
}

// itemInputs are e's lines as an input gives them.
func itemInputs(e *store.Expense) []model.ItemInput {
	out := make([]model.ItemInput, len(e.Items))
	for i, it := range e.Items {
		st := it.SplitType
		in := model.ItemInput{Description: it.Description, Amount: it.Amount.Decimal(), SplitType: &st}
		for _, sh := range it.Shares {
			s := model.SplitInput{UserID: e.Splits[sh.Person].UserID, Percentage: sh.Percentage, Shares: sh.Shares}
			if st == store.SplitExact {
				d := sh.Amount.Decimal()
				s.Amount = &d
			}
			in.Splits = append(in.Splits, s)
		}
		out[i] = in
	}
	return out
}

// adjustmentInputs are e's adjustments as an input gives them.
func adjustmentInputs(e *store.Expense) []model.AdjustmentInput {
	var out []model.AdjustmentInput
	for _, a := range e.Adjustments {
		in := model.AdjustmentInput{Kind: a.Kind, Percentage: a.Percentage}
		if a.Amount != nil {
			d := a.Amount.Decimal()
			in.Amount = &d
		}
		out = append(out, in)
	}
	return out
}

// itemizedConversion refuses a conversion of an itemized expense: its lines
// are amounts of its own currency, which a conversion could not keep adding
// up exactly.
func itemizedConversion(itemized, converted bool, convertTo *string, rate *money.Decimal) error {
	switch {
	case itemized && (convertTo != nil || rate != nil):
		return badInput("input.convertTo", "an itemized expense is recorded in its own currency: leave convertTo and rate out")
	case itemized && converted:
		return badInput(itemsField, "the expense was converted from another currency: give items: [] or remove the conversion first")
	}
	return nil
}

// expenseItems are e's lines with each share naming its person.
func expenseItems(e *store.Expense) []model.ExpenseItem {
	out := make([]model.ExpenseItem, len(e.Items))
	for i, it := range e.Items {
		item := model.ExpenseItem{Description: it.Description, Amount: it.Amount, SplitType: it.SplitType, Shares: make([]store.Split, len(it.Shares))}
		for k, sh := range it.Shares {
			sp := e.Splits[sh.Person]
			item.Shares[k] = store.Split{
				ExpenseID: e.ID, GroupID: e.GroupID, UserID: sp.UserID, UserName: sp.UserName,
				Amount: sh.Amount, Percentage: sh.Percentage, Shares: sh.Shares,
			}
		}
		out[i] = item
	}
	return out
}

// checkPlanItems holds an imported itemized expense to createExpense's
// limits (lines, shares, adjustments, descriptions), cleaning each line's
// description as createExpense does.
func checkPlanItems(e *exchange.Expense) error {
	shares := 0
	for i := range e.Items {
		it := &e.Items[i]
		var err error
		if it.Description, err = text("description", it.Description, 1, store.MaxItemDescriptionLength); err != nil {
			return err
		}
		shares += len(it.Shares)
	}
	switch {
	case len(e.Items) > store.MaxItems:
		return fmt.Errorf("an expense has at most %d lines", store.MaxItems)
	case shares > store.MaxItemShares:
		return fmt.Errorf("the lines of an expense have at most %d shares together", store.MaxItemShares)
	case len(e.Adjustments) > store.MaxAdjustments:
		return fmt.Errorf("an expense has at most %d adjustments", store.MaxAdjustments)
	}
	return nil
}
