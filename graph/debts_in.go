package graph

import (
	"context"
	"errors"
	"maps"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/money"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// debtsIn expresses the debts in the currency code (debts(in:)): the debts
// of one pair of members, one per currency and in either direction, become
// one debt whose parts are each of them converted at the day's rate
// (money.ConvertBack: a part's converted amount at its rate gives back
// exactly what it settles), signed by direction, and whose amount is the
// parts' total, the debt running the way that total does. The order is
// that of the debts given. A debt in a currency no rate can be had for
// stays as it is, with one part whose rate and converted amount answer
// RATE_UNAVAILABLE on their own: the failure is that part's, not the
// group's. A pair whose parts cancel exactly keeps its debts apart (no
// transfer of nothing). The balances are not touched.
func (r *Resolver) debtsIn(ctx context.Context, debts []model.Debt, code string) ([]model.Debt, error) {
	in, err := currency("in", &code, money.Currency{})
	if err != nil {
		return nil, err
	}
	var out []*model.Debt // in first-seen order: netted pairs and unconverted debts
	pairs := map[[2]string]*model.Debt{}
	for _, d := range debts {
		part, err := r.debtPart(ctx, d.Amount, in)
		if isRateUnavailable(err) {
			d.Parts = []model.DebtPart{{Amount: d.Amount, Err: err}}
			out = append(out, &d)
			continue
		}
		if err != nil {
			return nil, err
		}
		pair := [2]string{d.FromID, d.ToID}
		if d.FromID > d.ToID {
			pair = [2]string{d.ToID, d.FromID}
		}
		netted, seen := pairs[pair]
		if !seen {
			netted = &model.Debt{GroupID: d.GroupID, FromID: pair[0], ToID: pair[1], Amount: money.Zero(in), Parts: []model.DebtPart{}}
			pairs[pair] = netted
			out = append(out, netted)
		}
		if d.FromID != netted.FromID {
			part = part.Negated()
		}
		netted.Parts = append(netted.Parts, part)
		netted.Amount = netted.Amount.Add(*part.Converted)
	}
	result := make([]model.Debt, 0, len(out))
	for _, d := range out {
		if d.Parts[0].Err == nil && d.Amount.IsZero() {
			for _, p := range d.Parts { // each part a debt of its own
				result = append(result, runningWay(model.Debt{GroupID: d.GroupID, FromID: d.FromID, ToID: d.ToID, Amount: *p.Converted, Parts: []model.DebtPart{p}}))
			}
			continue
		}
		result = append(result, runningWay(*d))
	}
	return result, nil
}

// runningWay is d turned to run the way its amount does: from its
// recipient to its payer, with every part negated, when it is negative.
func runningWay(d model.Debt) model.Debt {
	if d.Amount.Sign() >= 0 {
		return d
	}
	d.FromID, d.ToID, d.Amount = d.ToID, d.FromID, d.Amount.Neg()
	parts := make([]model.DebtPart, len(d.Parts))
	for i, p := range d.Parts {
		parts[i] = p.Negated()
	}
	d.Parts = parts
	return d
}

// isRateUnavailable reports whether err is RATE_UNAVAILABLE.
func isRateUnavailable(err error) bool {
	var e *gqlerror.Error
	return errors.As(err, &e) && e.Extensions["code"] == CodeRateUnavailable
}

// debtPart is a in the currency in, at the day's rate of in in a's currency.
func (r *Resolver) debtPart(ctx context.Context, a money.Amount, in money.Currency) (model.DebtPart, error) {
	if a.Currency() == in {
		one := money.NewDecimal(1, 0)
		return model.DebtPart{Amount: a, Rate: &one, Converted: &a}, nil
	}
	rt, err := r.dayRate(ctx, in, a.Currency())
	if err != nil {
		return model.DebtPart{}, err
	}
	converted := money.ConvertBack(a, rt.Value, in)
	return model.DebtPart{Amount: a, Rate: &rt.Value, RateSource: &rt.Source, RateDate: &rt.Date, Converted: &converted}, nil
}

// ownCopy is a copy of the GraphQL error err for one field: the executor
// writes the field's path and the presenter its extensions into the error
// it is given, so two fields answering one error (a part's rate and
// converted, resolved concurrently) must not share it.
func ownCopy(err error) error {
	var e *gqlerror.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Path = nil
	c.Extensions = maps.Clone(e.Extensions)
	return &c
}
