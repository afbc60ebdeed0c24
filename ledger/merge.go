package ledger

import "github.com/fracti/api/money"

// MergeDelta is the delta that moves everything from holds in the book onto
// into, as when a placeholder member is claimed by the real user: from's
// four amounts join into's, and from's debts with others become into's. A
// debt between the two of them cancels out, since nobody owes themselves.
// Applied to the book, it leaves from at zero and every other net unchanged
// but into's, which becomes the sum of both.
func (b *Book) MergeDelta(from, into string) Delta {
	_ = b.LoadPairs() // a reader of the book checked it first
	cur := b.Currency
	d := Delta{Currency: cur, Users: map[string]UserBalance{}, Pairs: map[Pair]money.Amount{}}
	if u := b.Users[from]; u != nil && !u.IsZero() {
		d.Users[from] = u.neg()
		d.Users[into] = *u
	}
	add := func(p Pair, a money.Amount) {
		d.Pairs[p] = orZero(d.Pairs[p], cur).Add(a)
	}
	for p, a := range b.Pairs {
		var other string
		var owes money.Amount // what from owes other
		switch from {
		case p.A:
			other, owes = p.B, a
		case p.B:
			other, owes = p.A, a.Neg()
		default:
			continue
		}
		add(p, a.Neg())
		if other == into {
			continue
		}
		q, intoIsA := PairOf(into, other)
		if !intoIsA {
			owes = owes.Neg()
		}
		add(q, owes)
	}
	return d
}
