package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// inputUsers are the users an expense's input names as payers and
// beneficiaries (items' shares aside), each once, in order.
func inputUsers(in model.CreateExpenseInput) []string {
	var users []string
	seen := map[string]bool{}
	add := func(u string) {
		if !seen[u] {
			seen[u] = true
			users = append(users, u)
		}
	}
	if in.PayerID != nil {
		add(*in.PayerID)
	}
	for _, p := range in.Payers {
		add(p.UserID)
	}
	for _, sp := range in.Splits {
		add(sp.UserID)
	}
	return users
}

// newExpense checks a createExpense input against the group and works out
// every payer's and beneficiary's exact amount. Every rejection names its
// input field.
func newExpense(ctx context.Context, g *store.Group, in model.CreateExpenseInput) (store.Expense, error) {
	return checkedExpense(ctx, g, in, nil, false)
}

// checkedExpense is newExpense where the users in mayHaveLeft need only
// have been members (the store still refuses an edit that changes the
// balance of someone who left). With amountFromItems (an edit of an
// itemized expense without a new amount) the amount is the total of the
// items and adjustments instead of in.Amount.
func checkedExpense(ctx context.Context, g *store.Group, in model.CreateExpenseInput, mayHaveLeft map[string]bool, amountFromItems bool) (store.Expense, error) {
	cur, err := currency("input.currency", in.Currency, g.Currency)
	if err != nil {
		return store.Expense{}, err
	}
	b, err := inputBill(cur, in)
	if err != nil {
		return store.Expense{}, err
	}
	var total money.Amount
	if b != nil && amountFromItems {
		total = b.split.Total
	} else if total, err = positiveAmount("input.amount", in.Amount, cur); err != nil {
		return store.Expense{}, err
	}
	if b != nil {
		if err := b.checkTotal(total); err != nil {
			return store.Expense{}, err
		}
	}
	description, err := text("input.description", in.Description, 1, maxDescriptionLength)
	if err != nil {
		return store.Expense{}, err
	}
	category, err := optionalText("input.category", in.Category, maxCategoryLength)
	if err != nil {
		return store.Expense{}, err
	}
	payers, err := payments(ctx, total, in)
	if err != nil {
		return store.Expense{}, err
	}
	var parts []money.Amount
	var beneficiaries, beneficiaryFields []string
	if b != nil {
		parts, beneficiaries, beneficiaryFields = b.split.Shares, b.people, b.fields
	} else {
		if in.SplitType == nil {
			return store.Expense{}, badInput("input.splitType", "is required unless items are given")
		}
		if parts, err = splitAmounts(total, *in.SplitType, in.Splits, "input.splits"); err != nil {
			return store.Expense{}, err
		}
		for i, s := range in.Splits {
			beneficiaries = append(beneficiaries, s.UserID)
			beneficiaryFields = append(beneficiaryFields, fmt.Sprintf("input.splits[%d].userId", i))
		}
	}
	involved := map[string]bool{}
	for _, p := range payers {
		involved[p.UserID] = true
	}
	for _, u := range beneficiaries {
		involved[u] = true
	}
	if len(involved) > store.MaxExpenseParticipants {
		return store.Expense{}, participantLimit()
	}

	// Everyone involved must be a member; their names are kept with the expense.
	var userIDs, fields []string
	for i, p := range payers {
		userIDs, fields = append(userIDs, p.UserID), append(fields, payerField(in, i))
	}
	userIDs, fields = append(userIDs, beneficiaries...), append(fields, beneficiaryFields...)
	members, err := loaders.Members(ctx, g.ID, userIDs)
	if err != nil {
		return store.Expense{}, err
	}
	for i, m := range members {
		if !m.Available() && (m == nil || !mayHaveLeft[userIDs[i]]) {
			return store.Expense{}, badInput(fields[i], "user %s is not a member of this group", userIDs[i])
		}
	}
	spent, err := spentAt("input.spentAt", in.SpentAt)
	if err != nil {
		return store.Expense{}, err
	}

	e := store.Expense{
		GroupID: g.ID, Amount: total, Description: description, Category: category,
		CreatedBy: viewerID(ctx), SpentAt: spent,
	}
	for i := range payers {
		payers[i].UserName = members[i].Name
	}
	e.Payers = payers
	if b != nil {
		// Each person's total, computed from the lines.
		e.SplitType, e.Items, e.Adjustments = store.SplitExact, b.items, b.adjustments
	} else {
		e.SplitType = *in.SplitType
	}
	for i, u := range beneficiaries {
		sp := store.Split{UserID: u, UserName: members[len(payers)+i].Name, Amount: parts[i]}
		switch e.SplitType {
		case store.SplitPercentage:
			sp.Percentage = in.Splits[i].Percentage
		case store.SplitShares:
			sp.Shares = in.Splits[i].Shares
		}
		e.Splits = append(e.Splits, sp)
	}
	return e, nil
}

func payerField(in model.CreateExpenseInput, i int) string {
	if len(in.Payers) == 0 {
		return "input.payerId"
	}
	return fmt.Sprintf("input.payers[%d].userId", i)
}

// payments are who paid what: one payer (payerId, by default the viewer)
// paying it all, or the listed payers, whose amounts add up to the total.
func payments(ctx context.Context, total money.Amount, in model.CreateExpenseInput) ([]store.Payment, error) {
	if len(in.Payers) == 0 {
		payer := viewerID(ctx)
		if in.PayerID != nil {
			if !memberUserIDPattern.MatchString(*in.PayerID) {
				return nil, badInput("input.payerId", "is not a member's user id")
			}
			payer = *in.PayerID
		}
		return []store.Payment{{UserID: payer, Amount: total}}, nil
	}
	if in.PayerID != nil {
		return nil, badInput("input.payerId", "give either payerId or payers, not both")
	}
	if len(in.Payers) > store.MaxExpenseParticipants {
		return nil, participantLimit()
	}
	out := make([]store.Payment, len(in.Payers))
	amounts := make([]money.Amount, len(in.Payers))
	seen := map[string]bool{}
	for i, p := range in.Payers {
		field := fmt.Sprintf("input.payers[%d]", i)
		if !memberUserIDPattern.MatchString(p.UserID) {
			return nil, badInput(field+".userId", "is not a member's user id")
		}
		if seen[p.UserID] {
			return nil, badInput(field+".userId", "user %s is listed twice", p.UserID)
		}
		seen[p.UserID] = true
		a, err := positiveAmount(field+".amount", p.Amount, total.Currency())
		if err != nil {
			return nil, err
		}
		out[i], amounts[i] = store.Payment{UserID: p.UserID, Amount: a}, a
	}
	if sum := money.Sum(total.Currency(), amounts...); sum.Cmp(total) != 0 {
		return nil, badInput("input.payers", "payers add up to %s but the amount is %s %s", sum, total, total.Currency())
	}
	return out, nil
}

func participantLimit() error { return participantLimitAt("input.splits") }

func participantLimitAt(field string) error {
	return badInput(field, "an expense can involve at most %d members, payers included", store.MaxExpenseParticipants)
}

// splitAmounts validates the splits (the input field splitsField: an
// expense's, or one of its lines') for the split type and returns each
// beneficiary's part, summing exactly to total.
func splitAmounts(total money.Amount, splitType store.SplitType, splits []model.SplitInput, splitsField string) ([]money.Amount, error) {
	if len(splits) == 0 {
		return nil, badInput(splitsField, "list at least one member who shares the expense")
	}
	if len(splits) > store.MaxExpenseParticipants {
		return nil, participantLimitAt(splitsField)
	}
	seen := make(map[string]bool, len(splits))
	for i, s := range splits {
		field := fmt.Sprintf("%s[%d]", splitsField, i)
		if !memberUserIDPattern.MatchString(s.UserID) {
			return nil, badInput(field+".userId", "is not a member's user id")
		}
		if seen[s.UserID] {
			return nil, badInput(field+".userId", "user %s is listed twice", s.UserID)
		}
		seen[s.UserID] = true
		// Each split type takes its own field and no other.
		for _, f := range []struct {
			given   bool
			name    string
			onlyFor store.SplitType
		}{
			{s.Amount != nil, "amount", store.SplitExact},
			{s.Percentage != nil, "percentage", store.SplitPercentage},
			{s.Shares != nil, "shares", store.SplitShares},
		} {
			if f.given && splitType != f.onlyFor {
				return nil, badInput(field+"."+f.name, "is only for %s splits", enumName(f.onlyFor))
			}
		}
	}

	var parts []money.Amount
	var err error
	switch splitType {
	case store.SplitEqual:
		parts, err = money.SplitEqual(total, len(splits))
	case store.SplitExact:
		parts = make([]money.Amount, len(splits))
		for i, s := range splits {
			field := fmt.Sprintf("%s[%d].amount", splitsField, i)
			if s.Amount == nil {
				return nil, badInput(field, "is required for EXACT splits")
			}
			if parts[i], err = money.AmountFromDecimal(*s.Amount, total.Currency()); err != nil {
				return nil, moneyError(field, err)
			}
			if parts[i].Sign() < 0 {
				return nil, badInput(field, "must not be negative")
			}
		}
		err = money.CheckExactSplit(total, parts)
	case store.SplitPercentage, store.SplitShares:
		name := "percentage"
		if splitType == store.SplitShares {
			name = "shares"
		}
		weights := make([]money.Decimal, len(splits))
		for i, s := range splits {
			w := s.Percentage
			if splitType == store.SplitShares {
				w = s.Shares
			}
			if w == nil {
				return nil, badInput(fmt.Sprintf("%s[%d].%s", splitsField, i, name), "is required for %s splits", enumName(splitType))
			}
			if err := weight(fmt.Sprintf("%s[%d].%s", splitsField, i, name), *w); err != nil {
				return nil, err
			}
			weights[i] = *w
		}
		if splitType == store.SplitShares {
			parts, err = money.SplitWeighted(total, weights)
		} else {
			parts, err = money.SplitPercentages(total, weights)
		}
	default:
		return nil, badInput("input.splitType", "unknown split type %q", splitType)
	}
	if err != nil {
		return nil, moneyError(splitsField, err)
	}
	return parts, nil
}

// enumName is a stored enum value as the schema spells it ("equal" → EQUAL).
func enumName[T ~string](v T) string { return strings.ToUpper(string(v)) }

// editedExpense applies an updateExpense input to the expense e: the fields
// given replace e's, the rest keep their values, and the result is checked as
// a new expense would be. A new amount re-divides EQUAL, PERCENTAGE and
// SHARES splits by their weights and moves a single payer's payment with it;
// EXACT amounts and several payers' amounts must then be given anew.
func editedExpense(ctx context.Context, g *store.Group, e *store.Expense, in model.UpdateExpenseInput) (store.Expense, error) {
	amount := e.Amount.Decimal()
	amountChanged := false
	if in.Amount != nil {
		amount, amountChanged = *in.Amount, in.Amount.Cmp(e.Amount.Decimal()) != 0
	}
	cur := e.Currency().Code()
	if in.Currency != nil {
		cur = *in.Currency
	}
	description := e.Description
	if in.Description != nil {
		description = *in.Description
	}
	category := nullable(e.Category)
	if in.Category != nil {
		category = nullable(*in.Category)
	}
	spent := e.SpentAt
	if in.SpentAt != nil {
		spent = *in.SpentAt
	}
	splitType := e.SplitType
	c := model.CreateExpenseInput{
		GroupID: g.ID, Amount: amount, Currency: &cur, Description: description, Category: category,
		PayerID: in.PayerID, Payers: in.Payers, SplitType: &splitType, Splits: in.Splits, SpentAt: &spent,
	}
	itemized, err := editedItems(e, in, &c)
	if err != nil {
		return store.Expense{}, err
	}
	// Without a new amount an itemized expense's amount is its new total: a
	// single payer follows it; several payers' amounts must still add up.
	amountFromItems := itemized && in.Amount == nil
	if in.PayerID == nil && in.Payers == nil {
		switch {
		case len(e.Payers) == 1:
			c.PayerID = &e.Payers[0].UserID
		case amountChanged:
			return store.Expense{}, badInput("input.payers", "several members paid this expense: give payers with the new amount")
		default:
			for _, p := range e.Payers {
				c.Payers = append(c.Payers, model.PaymentInput{UserID: p.UserID, Amount: p.Amount.Decimal()})
			}
		}
	}
	if in.SplitType != nil {
		c.SplitType = in.SplitType
	}
	if in.Splits == nil && !itemized {
		switch {
		case *c.SplitType != e.SplitType && *c.SplitType != store.SplitEqual:
			return store.Expense{}, badInput("input.splits", "give splits for the new split type %s", enumName(*c.SplitType))
		case *c.SplitType == store.SplitExact && amountChanged:
			return store.Expense{}, badInput("input.splits", "give the EXACT splits' amounts for the new amount")
		}
		for _, sp := range e.Splits {
			si := model.SplitInput{UserID: sp.UserID}
			switch *c.SplitType {
			case store.SplitExact:
				d := sp.Amount.Decimal()
				si.Amount = &d
			case store.SplitPercentage:
				si.Percentage = sp.Percentage
			case store.SplitShares:
				si.Shares = sp.Shares
			}
			c.Splits = append(c.Splits, si)
		}
	}
	involved := map[string]bool{}
	for _, p := range e.Payers {
		involved[p.UserID] = true
	}
	for _, sp := range e.Splits {
		involved[sp.UserID] = true
	}
	return checkedExpense(ctx, g, c, involved, amountFromItems)
}
