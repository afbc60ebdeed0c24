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
	type given struct {
		debt model.Debt
		part model.DebtPart
	}
	type entry struct {
		debt  model.Debt // the pair's netted debt, or a debt left unconverted
		given []given    // the pair's debts as given, for a total of zero
	}
	var entries []*entry
	pairs := map[[2]string]*entry{}
	for _, d := range debts {
		part, err := r.debtPart(ctx, d.Amount, in)
		if isRateUnavailable(err) {
			unconverted := d
			unconverted.Parts = []model.DebtPart{{Amount: d.Amount, Err: err}}
			entries = append(entries, &entry{debt: unconverted})
			continue
		}
		if err != nil {
			return nil, err
		}
		pair := [2]string{d.FromID, d.ToID}
		if d.FromID > d.ToID {
			pair = [2]string{d.ToID, d.FromID}
		}
		e, seen := pairs[pair]
		if !seen {
			e = &entry{debt: model.Debt{GroupID: d.GroupID, FromID: pair[0], ToID: pair[1], Amount: money.Zero(in), Parts: []model.DebtPart{}}}
			pairs[pair] = e
			entries = append(entries, e)
		}
		e.given = append(e.given, given{d, part})
		if d.FromID != e.debt.FromID {
			part = part.Negated()
		}
		e.debt.Parts = append(e.debt.Parts, part)
		e.debt.Amount = e.debt.Amount.Add(*part.Converted)
	}
	out := make([]model.Debt, 0, len(entries))
	for _, e := range entries {
		switch d := e.debt; {
		case d.Parts[0].Err != nil:
			out = append(out, d)
		case d.Amount.IsZero():
			for _, g := range e.given { // each converted alone
				out = append(out, model.Debt{GroupID: g.debt.GroupID, FromID: g.debt.FromID, ToID: g.debt.ToID,
					Amount: *g.part.Converted, Parts: []model.DebtPart{g.part}})
			}
		case d.Amount.Sign() < 0:
			d.FromID, d.ToID, d.Amount = d.ToID, d.FromID, d.Amount.Neg()
			for i := range d.Parts {
				d.Parts[i] = d.Parts[i].Negated()
			}
			out = append(out, d)
		default:
			out = append(out, d)
		}
	}
	return out, nil
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
