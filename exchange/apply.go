package exchange

import (
	"cmp"
	"slices"

	"github.com/fracti/api/money"
)

// NetBalances is what applying the plan does to each person's balance in
// each currency: what they paid minus their share of every expense, plus
// what they paid minus what they received in every completed settlement
// (in the currency it settles). People and currencies it leaves at zero are
// left out; the order is the People order, then currency code. A reader's
// tests compare it with the file's own Balances, and the importer can
// check a Plan before writing it.
func (p *Plan) NetBalances() []Balance {
	type key struct{ name, cur string }
	sums := map[key]money.Amount{}
	add := func(name string, a money.Amount) {
		k := key{name, a.Currency().Code()}
		if s, ok := sums[k]; ok {
			sums[k] = s.Add(a)
		} else {
			sums[k] = a
		}
	}
	for _, e := range p.Expenses {
		for _, x := range e.Payers {
			add(x.Name, x.Amount)
		}
		for _, x := range e.Splits {
			add(x.Name, x.Amount.Neg())
		}
	}
	for _, s := range p.Settlements {
		if s.Status != "" && s.Status != "completed" {
			continue
		}
		for _, a := range s.SettledParts() {
			add(s.From, a)
			add(s.To, a.Neg())
		}
	}
	order := make(map[string]int, len(p.People))
	for i, x := range p.People {
		order[x.Name] = i
	}
	keys := make([]key, 0, len(sums))
	for k, a := range sums {
		if !a.IsZero() {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(order[a.name], order[b.name]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.name, b.name); c != 0 {
			return c
		}
		return cmp.Compare(a.cur, b.cur)
	})
	out := make([]Balance, len(keys))
	for i, k := range keys {
		out[i] = Balance{Name: k.name, Amount: sums[k]}
	}
	return out
}

// NonZero returns the balances of bs that are not zero, in order: a file's
// Balances lists zeros that NetBalances leaves out.
func NonZero(bs []Balance) []Balance {
	out := make([]Balance, 0, len(bs))
	for _, b := range bs {
		if !b.Amount.IsZero() {
			out = append(out, b)
		}
	}
	return out
}
