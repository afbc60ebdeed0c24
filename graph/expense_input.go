package graph

import (
	"context"
	"fmt"
	"slices"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// newExpense checks a createExpense input against the group and works out
// every beneficiary's exact part. Every rejection names its input field.
func newExpense(ctx context.Context, g *store.Group, in model.CreateExpenseInput) (store.Expense, error) {
	cur, err := currency("input.currency", in.Currency, g.Currency)
	if err != nil {
		return store.Expense{}, err
	}
	total, err := positiveAmount("input.amount", in.Amount, cur)
	if err != nil {
		return store.Expense{}, err
	}
	description, err := text("input.description", in.Description, 1, 200)
	if err != nil {
		return store.Expense{}, err
	}
	category, err := optionalText("input.category", in.Category, 50)
	if err != nil {
		return store.Expense{}, err
	}
	payerID := viewerID(ctx)
	if in.PayerID != nil {
		payerID = *in.PayerID
	}
	parts, pcts, err := splitAmounts(total, in.SplitType, in.Splits)
	if err != nil {
		return store.Expense{}, err
	}
	if !slices.ContainsFunc(in.Splits, func(s model.SplitInput) bool { return s.UserID == payerID }) && len(in.Splits)+1 > store.MaxExpenseParticipants {
		return store.Expense{}, participantLimit()
	}

	// Everyone involved must be a member; their names are kept with the expense.
	keys := []store.MemberKey{{GroupID: g.ID, UserID: payerID}}
	for _, s := range in.Splits {
		keys = append(keys, store.MemberKey{GroupID: g.ID, UserID: s.UserID})
	}
	members, errs := loaders.For(ctx).Members.LoadMany(ctx, keys)()
	for i, m := range members {
		if len(errs) > i && errs[i] != nil {
			return store.Expense{}, errs[i]
		}
		if m == nil {
			field := "input.payerId"
			if i > 0 {
				field = fmt.Sprintf("input.splits[%d].userId", i-1)
			}
			return store.Expense{}, badInput(field, "user %s is not a member of this group", keys[i].UserID)
		}
	}

	e := store.Expense{
		GroupID: g.ID, PayerID: payerID, PayerName: members[0].Name, Amount: total,
		Description: description, Category: category, SplitType: in.SplitType, CreatedBy: viewerID(ctx),
	}
	for i, s := range in.Splits {
		e.Splits = append(e.Splits, store.Split{
			UserID: s.UserID, UserName: members[i+1].Name, Amount: parts[i], Percentage: pcts[i],
		})
	}
	return e, nil
}

func participantLimit() error {
	return badInput("input.splits", "an expense can involve at most %d members, payer included", store.MaxExpenseParticipants)
}

// splitAmounts validates the splits for the split type and returns each
// beneficiary's part (and percentage), summing exactly to total.
func splitAmounts(total money.Amount, splitType store.SplitType, splits []model.SplitInput) ([]money.Amount, []*money.Decimal, error) {
	if len(splits) == 0 {
		return nil, nil, badInput("input.splits", "list at least one member who shares the expense")
	}
	if len(splits) > store.MaxExpenseParticipants {
		return nil, nil, participantLimit()
	}
	seen := make(map[string]bool, len(splits))
	for i, s := range splits {
		field := fmt.Sprintf("input.splits[%d]", i)
		if !telegramIDPattern.MatchString(s.UserID) {
			return nil, nil, badInput(field+".userId", "is not a Telegram user id")
		}
		if seen[s.UserID] {
			return nil, nil, badInput(field+".userId", "user %s is listed twice", s.UserID)
		}
		seen[s.UserID] = true
		if s.Amount != nil && splitType != store.SplitExact {
			return nil, nil, badInput(field+".amount", "is only for EXACT splits")
		}
		if s.Percentage != nil && splitType != store.SplitPercentage {
			return nil, nil, badInput(field+".percentage", "is only for PERCENTAGE splits")
		}
	}

	pcts := make([]*money.Decimal, len(splits))
	var parts []money.Amount
	var err error
	switch splitType {
	case store.SplitEqual:
		parts, err = money.SplitEqual(total, len(splits))
	case store.SplitExact:
		parts = make([]money.Amount, len(splits))
		for i, s := range splits {
			field := fmt.Sprintf("input.splits[%d].amount", i)
			if s.Amount == nil {
				return nil, nil, badInput(field, "is required for EXACT splits")
			}
			if parts[i], err = money.AmountFromDecimal(*s.Amount, total.Currency()); err != nil {
				return nil, nil, moneyError(field, err)
			}
			if parts[i].Sign() < 0 {
				return nil, nil, badInput(field, "must not be negative")
			}
		}
		err = money.CheckExactSplit(total, parts)
	case store.SplitPercentage:
		ds := make([]money.Decimal, len(splits))
		for i, s := range splits {
			if s.Percentage == nil {
				return nil, nil, badInput(fmt.Sprintf("input.splits[%d].percentage", i), "is required for PERCENTAGE splits")
			}
			ds[i], pcts[i] = *s.Percentage, s.Percentage
		}
		parts, err = money.SplitPercentages(total, ds)
	default:
		return nil, nil, badInput("input.splitType", "unknown split type %q", splitType)
	}
	if err != nil {
		return nil, nil, moneyError("input.splits", err)
	}
	return parts, pcts, nil
}
