package graph

import (
	"context"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/money"
)

// debtsIn expresses the debts in the currency code (debts(in:)): the debts
// of one pair of members, one per currency, become one debt whose parts are
// each of them converted at the day's rate (money.ConvertBack: a part's
// converted amount at its rate gives back exactly what it settles), and
// whose amount is the parts' total. The order is that of the debts given;
// a pair owing each other in different currencies stays two debts, one each
// way. The balances are not touched.
func (r *Resolver) debtsIn(ctx context.Context, debts []model.Debt, code string) ([]model.Debt, error) {
	in, err := currency("in", &code, money.Currency{})
	if err != nil {
		return nil, err
	}
	out := []model.Debt{}
	index := map[[2]string]int{}
	for _, d := range debts {
		part, err := r.debtPart(ctx, d.Amount, in)
		if err != nil {
			return nil, err
		}
		pair := [2]string{d.FromID, d.ToID}
		i, seen := index[pair]
		if !seen {
			i = len(out)
			index[pair] = i
			out = append(out, model.Debt{GroupID: d.GroupID, FromID: d.FromID, ToID: d.ToID, Amount: money.Zero(in), Parts: []model.DebtPart{}})
		}
		out[i].Parts = append(out[i].Parts, part)
		out[i].Amount = out[i].Amount.Add(part.Converted)
	}
	return out, nil
}

// debtPart is a in the currency in, at the day's rate of in in a's currency.
func (r *Resolver) debtPart(ctx context.Context, a money.Amount, in money.Currency) (model.DebtPart, error) {
	if a.Currency() == in {
		return model.DebtPart{Amount: a, Rate: money.NewDecimal(1, 0), Converted: a}, nil
	}
	rt, err := r.dayRate(ctx, in, a.Currency())
	if err != nil {
		return model.DebtPart{}, err
	}
	return model.DebtPart{
		Amount: a, Rate: rt.Value, RateSource: &rt.Source, RateDate: &rt.Date,
		Converted: money.ConvertBack(a, rt.Value, in),
	}, nil
}
