// Package ledger keeps a group's balances exactly: per-currency books that
// every expense and settlement updates through a Delta, pairwise debts
// ("who owes whom") kept alongside them, and settle-up suggestions with the
// fewest transfers. It is pure computation; the store persists the books.
package ledger

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/fracti/api/money"
)

// Book is a group's running balances in one currency.
type Book struct {
	Currency money.Currency
	// Users holds every user a delta has changed, kept even once settled.
	Users map[string]*UserBalance
	// Pairs holds "A owes B" (negative: B owes A); Apply drops entries that reach zero.
	// A book read with DecodePairsLater holds them only once LoadPairs ran.
	Pairs map[Pair]money.Amount

	// later decodes Pairs on first use: most reads of a book (balances,
	// simplified debts) need only its users' totals, and a group's pairs
	// are most of its book.
	later struct {
		once   sync.Once
		decode func() (map[Pair]money.Amount, error)
		err    error
	}

	// settled caches Simplified until Apply changes the book.
	settled struct {
		sync.Mutex
		done      bool
		transfers []Transfer
		err       error
	}
}

// Simplified is Simplify of the book's nets, worked out once and kept until
// Apply changes the book, so that asking a book for its settle-up many
// times (say, in many aliases of one query) costs one search. It is safe
// for concurrent use; the result must not be modified.
func (b *Book) Simplified() ([]Transfer, error) {
	b.settled.Lock()
	defer b.settled.Unlock()
	if !b.settled.done {
		b.settled.transfers, b.settled.err = Simplify(b.Currency, b.Nets())
		b.settled.done = true
	}
	return b.settled.transfers, b.settled.err
}

// DecodePairsLater leaves the book's Pairs to decode on first use: LoadPairs
// (and every method of the book that reads them) runs decode once. Whoever
// reads Pairs directly calls LoadPairs first.
func (b *Book) DecodePairsLater(decode func() (map[Pair]money.Amount, error)) {
	b.later.decode = decode
}

// LoadPairs decodes the pairs of a book read with DecodePairsLater, once
// (it is safe for concurrent use), and returns the decoding's error; for any
// other book it does nothing. A book whose pairs fail to decode keeps none.
func (b *Book) LoadPairs() error {
	if b.later.decode == nil {
		return nil
	}
	b.later.once.Do(func() {
		pairs, err := b.later.decode()
		if err != nil {
			pairs = map[Pair]money.Amount{}
		}
		b.Pairs, b.later.err = pairs, err
	})
	return b.later.err
}

// NewBook returns an empty book in cur.
func NewBook(cur money.Currency) *Book {
	return &Book{Currency: cur, Users: map[string]*UserBalance{}, Pairs: map[Pair]money.Amount{}}
}

// Apply adds d to the book. It panics if d is in another currency, since
// mixing currencies would corrupt balances, or if d pairs a user with
// themselves; a panic leaves the book unchanged.
func (b *Book) Apply(d Delta) {
	if d.Currency != b.Currency {
		panic(fmt.Sprintf("ledger: %v: %s delta applied to a %s book", money.ErrCurrencyMismatch, d.Currency, b.Currency))
	}
	_ = b.LoadPairs() // a reader of the book checked it first
	cur := b.Currency
	// Everything is computed before anything is stored, so that a panic on a
	// malformed entry cannot leave the book half updated.
	users := make(map[string]UserBalance, len(d.Users))
	for id, u := range d.Users {
		have := zeroBalance(cur)
		if p := b.Users[id]; p != nil {
			have = *p
		}
		users[id] = UserBalance{
			Paid:     orZero(have.Paid, cur).Add(orZero(u.Paid, cur)),
			Owed:     orZero(have.Owed, cur).Add(orZero(u.Owed, cur)),
			Sent:     orZero(have.Sent, cur).Add(orZero(u.Sent, cur)),
			Received: orZero(have.Received, cur).Add(orZero(u.Received, cur)),
		}
	}
	pairs := make(map[Pair]money.Amount, len(d.Pairs))
	for p, a := range d.Pairs {
		a = orZero(a, cur)
		// Hand-built deltas may list a pair backwards; store it normalized.
		switch {
		case p.A == p.B:
			panic("ledger: pair of user " + p.A + " with themselves")
		case p.A > p.B:
			p, a = Pair{A: p.B, B: p.A}, a.Neg()
		}
		base, ok := pairs[p]
		if !ok {
			base = orZero(b.Pairs[p], cur)
		}
		pairs[p] = base.Add(a)
	}

	b.settled.Lock()
	b.settled.done, b.settled.transfers, b.settled.err = false, nil, nil
	b.settled.Unlock()
	if b.Users == nil {
		b.Users = make(map[string]*UserBalance, len(users))
	}
	if b.Pairs == nil {
		b.Pairs = make(map[Pair]money.Amount, len(pairs))
	}
	for id, u := range users {
		if p := b.Users[id]; p != nil {
			*p = u
		} else {
			b.Users[id] = &u
		}
	}
	for p, a := range pairs {
		if a.IsZero() {
			delete(b.Pairs, p)
		} else {
			b.Pairs[p] = a
		}
	}
}

// Nets returns every user's net (Paid − Owed + Sent − Received), zeros included.
func (b *Book) Nets() map[string]money.Amount {
	nets := make(map[string]money.Amount, len(b.Users))
	for id, u := range b.Users {
		nets[id] = b.net(u)
	}
	return nets
}

// net returns u's net in the book's currency, even if every field is unset.
func (b *Book) net(u *UserBalance) money.Amount {
	if u == nil {
		return money.Zero(b.Currency)
	}
	return UserBalance{
		Paid: orZero(u.Paid, b.Currency), Owed: orZero(u.Owed, b.Currency),
		Sent: orZero(u.Sent, b.Currency), Received: orZero(u.Received, b.Currency),
	}.Net()
}

// Equal reports whether b and o hold the same amounts, treating missing
// users and pairs (and a nil book) as zero.
func (b *Book) Equal(o *Book) bool { return len(b.diff(o, 1)) == 0 }

// Diff describes how b (the kept book) differs from o (a recomputed one), one
// line per differing amount in a stable order; it is empty when they are Equal.
func (b *Book) Diff(o *Book) []string { return b.diff(o, -1) }

// diff lists up to limit differences (all of them if limit < 0).
func (b *Book) diff(o *Book, limit int) []string {
	if b == nil && o == nil {
		return nil
	}
	if b == nil {
		b = &Book{Currency: o.Currency}
	}
	if o == nil {
		o = &Book{Currency: b.Currency}
	}
	var out []string
	full := func() bool { return limit >= 0 && len(out) >= limit }
	if b.Currency != o.Currency {
		out = append(out, fmt.Sprintf("currency: kept %s, recomputed %s", b.Currency, o.Currency))
	}

	ids := slices.Sorted(maps.Keys(b.Users))
	for id := range o.Users {
		if _, ok := b.Users[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		x, y := b.Users[id], o.Users[id]
		if x == nil {
			x = &UserBalance{}
		}
		if y == nil {
			y = &UserBalance{}
		}
		for _, f := range []struct {
			name string
			x, y money.Amount
		}{
			{"paid", x.Paid, y.Paid},
			{"owed", x.Owed, y.Owed},
			{"sent", x.Sent, y.Sent},
			{"received", x.Received, y.Received},
		} {
			if full() {
				return out
			}
			if !sameAmount(f.x, f.y) {
				out = append(out, fmt.Sprintf("user %s %s: kept %s, recomputed %s",
					id, f.name, showAmount(f.x, b.Currency), showAmount(f.y, o.Currency)))
			}
		}
	}

	for _, x := range []*Book{b, o} {
		if err := x.LoadPairs(); err != nil {
			return append(out, fmt.Sprintf("pairs: %v", err))
		}
	}
	pairs := slices.Collect(maps.Keys(b.Pairs))
	for p := range o.Pairs {
		if _, ok := b.Pairs[p]; !ok {
			pairs = append(pairs, p)
		}
	}
	slices.SortFunc(pairs, comparePairs)
	for _, p := range pairs {
		if full() {
			return out
		}
		x, y := b.Pairs[p], o.Pairs[p]
		if !sameAmount(x, y) {
			out = append(out, fmt.Sprintf("pair %s/%s: kept %s, recomputed %s",
				p.A, p.B, showDebt(p, x, b.Currency), showDebt(p, y, o.Currency)))
		}
	}
	return out
}

// sameAmount reports whether a and b are equal, any two zeros being equal
// whatever their currency (so unset entries match zero ones).
func sameAmount(a, b money.Amount) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() && b.IsZero()
	}
	return a.Currency() == b.Currency() && a.Cmp(b) == 0
}

// showAmount formats a for Diff, naming its currency only when it is not the book's.
func showAmount(a money.Amount, cur money.Currency) string {
	a = orZero(a, cur)
	if a.Currency() != cur {
		return a.String() + " " + a.Currency().Code()
	}
	return a.String()
}

// showDebt formats a pair value as who owes whom, which a signed number
// would leave the reader to work out.
func showDebt(p Pair, a money.Amount, cur money.Currency) string {
	switch a.Sign() {
	case 0:
		return "settled"
	case 1:
		return fmt.Sprintf("%s owes %s %s", p.A, p.B, showAmount(a, cur))
	default:
		return fmt.Sprintf("%s owes %s %s", p.B, p.A, showAmount(a.Neg(), cur))
	}
}

// comparePairs orders pairs by A, then B.
func comparePairs(x, y Pair) int {
	return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
}
