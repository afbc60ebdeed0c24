package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/money"
	"github.com/fracti/api/rates"
	"github.com/fracti/api/store"
)

// CodeRateUnavailable: no exchange rate can be had for a conversion (no
// provider configured, the provider down with nothing kept for the day, or
// a currency it does not quote); the client passes `rate` instead.
const CodeRateUnavailable = "RATE_UNAVAILABLE"

// rateUnavailable is the RATE_UNAVAILABLE error for from → to, naming the
// unlisted currency in extensions.currency when that is the cause.
func rateUnavailable(err error, from, to string) error {
	var unlisted *rates.UnlistedError
	if errors.As(err, &unlisted) {
		e := codedError(CodeRateUnavailable, unlisted.Error()+": pass `rate` to convert from "+from+" to "+to)
		e.Extensions["currency"] = unlisted.Currency
		return e
	}
	if !errors.Is(err, rates.ErrUnavailable) {
		return err
	}
	return codedError(CodeRateUnavailable, "no exchange rate from "+from+" to "+to+" is available right now: pass `rate`")
}

// dayRate is the day's rate from → to from the configured providers, or
// RATE_UNAVAILABLE.
func (r *Resolver) dayRate(ctx context.Context, from, to money.Currency) (rates.Rate, error) {
	rt, err := r.Rates.Rate(ctx, from.Code(), to.Code())
	if err != nil {
		return rates.Rate{}, rateUnavailable(err, from.Code(), to.Code())
	}
	return rt, nil
}

// rateFor is the rate to record for a conversion from → to: the one given
// in field, dated today, or else the day's rate from the providers.
func (r *Resolver) rateFor(ctx context.Context, field string, from, to money.Currency, given *money.Decimal) (store.RecordedRate, error) {
	if given != nil {
		d, err := inputRate(field, *given)
		return store.RecordedRate{Rate: d, Source: store.RateSourceManual, Date: r.now().UTC().Format(time.DateOnly)}, err
	}
	rt, err := r.dayRate(ctx, from, to)
	return store.RecordedRate{Rate: rt.Value, Source: rt.Source, Date: rt.Date}, err
}

// inputRate reads a rate given by hand.
func inputRate(field string, d money.Decimal) (money.Decimal, error) {
	if err := money.CheckRate(d); err != nil {
		if errors.Is(err, money.ErrRatePrecision) {
			return money.Decimal{}, badInput(field, "may have at most %d significant digits", money.RateDigits)
		}
		return money.Decimal{}, badInput(field, "must be greater than zero")
	}
	return d, nil
}

// converted records the checked expense e, entered in its currency, in the
// currency convertTo names: at rate when given, else at keep's rate when
// keep is set (an edit that changes neither currency), else at the day's
// rate. The total is money.Convert of the entered amount; payers' amounts
// and EXACT splits are carried over as weights (largest remainder), the
// other split types are divided again on the converted total by their own
// rule, so everything adds up exactly. With convertTo nil, or naming e's own
// currency, e is recorded as entered.
func (r *Resolver) converted(ctx context.Context, e store.Expense, convertTo *string, rate *money.Decimal, keep *store.Conversion) (store.Expense, error) {
	e.Conversion = nil
	from := e.Currency()
	to, convert, err := conversionTarget("convertTo", convertTo, from, rate, "expense")
	if err != nil || !convert {
		return e, err
	}
	conv := store.Conversion{Original: e.Amount}
	if keep != nil {
		conv.RecordedRate = keep.RecordedRate
	} else if conv.RecordedRate, err = r.rateFor(ctx, "input.rate", from, to, rate); err != nil {
		return store.Expense{}, err
	}
	total := money.Convert(e.Amount, conv.Rate, to)
	if err := money.ValidatePositive(total); err != nil {
		return store.Expense{}, badInput("input.amount", "%s %s at %s is %s %s: %v", e.Amount, from, conv.Rate, total, to, err)
	}
	if e.Payers, err = carryPayers(total, e.Payers); err != nil {
		return store.Expense{}, err
	}
	if e.Splits, err = carrySplits(total, e.SplitType, e.Splits); err != nil {
		return store.Expense{}, err
	}
	e.Amount, e.Conversion = total, &conv
	return e, nil
}

// carryPayers moves the payers' amounts onto total by their weights.
func carryPayers(total money.Amount, payers []store.Payment) ([]store.Payment, error) {
	weights := make([]money.Decimal, len(payers))
	for i, p := range payers {
		weights[i] = p.Amount.Decimal()
	}
	parts, err := money.SplitWeighted(total, weights)
	if err != nil {
		return nil, moneyError("input.payers", err)
	}
	out := make([]store.Payment, len(payers))
	for i, p := range payers {
		p.Amount = parts[i]
		out[i] = p
	}
	return out, nil
}

// carrySplits divides total among the splits: EQUAL, PERCENTAGE and SHARES
// by their own rule, EXACT by the amounts entered as weights.
func carrySplits(total money.Amount, splitType store.SplitType, splits []store.Split) ([]store.Split, error) {
	var parts []money.Amount
	var err error
	weights := make([]money.Decimal, len(splits))
	for i, sp := range splits {
		switch splitType {
		case store.SplitPercentage:
			weights[i] = *sp.Percentage
		case store.SplitShares:
			weights[i] = *sp.Shares
		default:
			weights[i] = sp.Amount.Decimal()
		}
	}
	switch splitType {
	case store.SplitEqual:
		parts, err = money.SplitEqual(total, len(splits))
	case store.SplitPercentage:
		parts, err = money.SplitPercentages(total, weights)
	default:
		parts, err = money.SplitWeighted(total, weights)
	}
	if err != nil {
		return nil, moneyError("input.splits", err)
	}
	out := make([]store.Split, len(splits))
	for i, sp := range splits {
		sp.Amount = parts[i]
		out[i] = sp
	}
	return out, nil
}

// editedConverted is editedExpense with the conversion rules of an edit:
//   - an expense that is not converted and an input without convertTo or
//     rate: a plain edit;
//   - a converted expense and an input without amount, currency, convertTo
//     or rate: the edit is in the recorded currency (payers and splits given
//     are in it) and the conversion stays as recorded;
//   - otherwise the expense is converted again from the amount as entered:
//     amount and currency default to the original ones, payers and EXACT
//     splits not given anew are carried back to the original currency by
//     weight, convertTo defaults to the recorded currency, and the rate to
//     the recorded one unless convertTo is given or the original currency
//     changes (then it is the day's rate).
func (r *Resolver) editedConverted(ctx context.Context, g *store.Group, e *store.Expense, in model.UpdateExpenseInput) (store.Expense, error) {
	c := e.Conversion
	converting := in.ConvertTo != nil || in.Rate != nil
	if c == nil && !converting {
		return editedExpense(ctx, g, e, in)
	}
	if c != nil && !converting && in.Amount == nil && in.Currency == nil {
		next, err := editedExpense(ctx, g, e, in)
		next.Conversion = c
		return next, err
	}
	base := e
	convertTo := in.ConvertTo
	if c != nil {
		entered, err := enteredExpense(e)
		if err != nil {
			return store.Expense{}, err
		}
		base = &entered
		if convertTo == nil {
			code := e.Currency().Code()
			convertTo = &code
		}
	}
	next, err := editedExpense(ctx, g, base, in)
	if err != nil {
		return store.Expense{}, err
	}
	var keep *store.Conversion
	if c != nil && in.Rate == nil && in.ConvertTo == nil && next.Currency() == c.Original.Currency() {
		keep = c
	}
	return r.converted(ctx, next, convertTo, in.Rate, keep)
}

// enteredExpense is the converted expense e as it was entered: its original
// amount, with the payers and EXACT splits carried back by weight.
func enteredExpense(e *store.Expense) (store.Expense, error) {
	out := *e
	var err error
	if out.Payers, err = carryPayers(e.Conversion.Original, e.Payers); err != nil {
		return store.Expense{}, err
	}
	if out.Splits, err = carrySplits(e.Conversion.Original, e.SplitType, e.Splits); err != nil {
		return store.Expense{}, err
	}
	out.Amount, out.Conversion = e.Conversion.Original, nil
	return out, nil
}

// conversionTarget reads the currency the input field (convertTo,
// settlesCurrency) names for something (what) in currency from: convert is
// false when there is none or it is from itself; a rate is allowed only with
// a conversion.
func conversionTarget(field string, target *string, from money.Currency, rate *money.Decimal, what string) (to money.Currency, convert bool, err error) {
	if target == nil {
		if rate != nil {
			return to, false, badInput("input.rate", "give %s with rate", field)
		}
		return to, false, nil
	}
	if to, err = currency("input."+field, target, from); err != nil {
		return to, false, err
	}
	if to == from {
		if rate != nil {
			return to, false, badInput("input.rate", "the %s is already in %s", what, to)
		}
		return to, false, nil
	}
	return to, true, nil
}

// settledIn makes the settlement st, paid in its currency, settle a balance
// in the currency settlesCurrency names: at rate when given (the price of
// one unit of st's currency in it), else at the day's rate. Completing it
// then moves that balance by money.Convert(amount, rate).
func (r *Resolver) settledIn(ctx context.Context, st store.Settlement, settlesCurrency *string, rate *money.Decimal) (store.Settlement, error) {
	paid := st.Currency()
	to, convert, err := conversionTarget("settlesCurrency", settlesCurrency, paid, rate, "settlement")
	if err != nil || !convert {
		return st, err
	}
	c := store.SettledConversion{}
	if c.RecordedRate, err = r.rateFor(ctx, "input.rate", paid, to, rate); err != nil {
		return store.Settlement{}, err
	}
	c.Amount = money.Convert(st.Amount, c.Rate, to)
	if err := money.ValidatePositive(c.Amount); err != nil {
		return store.Settlement{}, badInput("input.amount", "%s %s at %s is %s %s: %v", st.Amount, paid, c.Rate, c.Amount, to, err)
	}
	st.Settles = &c
	return st, nil
}

// maxSettlementParts is the most currencies one settlement settles.
const maxSettlementParts = 20

// settledInParts makes the settlement st, paid in its currency, settle the
// balances the parts name, one currency each (a debt of debts(in:)): each
// part at its given rate, else at the day's rate (1 in st's own currency).
// st's amount must be exactly the parts' paid total (money.ConvertBack of
// each), positive. One part in st's own currency is an ordinary settlement.
func (r *Resolver) settledInParts(ctx context.Context, st store.Settlement, in []model.SettlementPartInput) (store.Settlement, error) {
	paid := st.Currency()
	if len(in) > maxSettlementParts {
		return store.Settlement{}, badInput("input.parts", "may have at most %d parts", maxSettlementParts)
	}
	parts := make([]store.SettledConversion, 0, len(in))
	seen := map[money.Currency]bool{}
	total := money.Zero(paid)
	for i, p := range in {
		field := fmt.Sprintf("input.parts[%d]", i)
		cur, err := currency(field+".currency", &p.Currency, money.Currency{})
		if err != nil {
			return store.Settlement{}, err
		}
		if seen[cur] {
			return store.Settlement{}, badInput(field+".currency", "%s is in another part already: each currency once", cur)
		}
		seen[cur] = true
		a, err := money.AmountFromDecimal(p.Amount, cur)
		if err != nil {
			return store.Settlement{}, moneyError(field+".amount", err)
		}
		if a.IsZero() {
			return store.Settlement{}, badInput(field+".amount", "must not be zero")
		}
		c := store.SettledConversion{Amount: a, RecordedRate: store.RecordedRate{Rate: money.NewDecimal(1, 0)}}
		switch {
		case cur == paid && p.Rate != nil && p.Rate.Cmp(money.NewDecimal(1, 0)) != 0:
			return store.Settlement{}, badInput(field+".rate", "the part in the settlement's own currency is at rate 1")
		case cur != paid:
			if c.RecordedRate, err = r.rateFor(ctx, field+".rate", paid, cur, p.Rate); err != nil {
				return store.Settlement{}, err
			}
		}
		share := money.ConvertBack(a, c.Rate, paid)
		if share.IsZero() {
			return store.Settlement{}, badInput(field+".amount", "%s %s is less than one minor unit of %s at %s", a, cur, paid, c.Rate)
		}
		total = total.Add(share)
		parts = append(parts, c)
	}
	switch {
	case total.Sign() <= 0:
		return store.Settlement{}, badInput("input.parts", "the parts come to %s %s: a settlement pays a positive amount (the debt runs the other way)", total, paid)
	case total.Cmp(st.Amount) != 0:
		return store.Settlement{}, badInput("input.amount", "the parts come to %s %s, not %s: pay exactly what they settle", total, paid, st.Amount)
	case len(parts) == 1 && parts[0].Amount.Currency() == paid:
		return st, nil
	}
	st.Parts = parts
	return st, nil
}
