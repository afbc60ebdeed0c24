package ledger

import (
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/fracti/api/money"
)

// ErrInvalidExpense reports payers or shares that cannot describe an expense;
// upstream validation should make it unreachable.
var ErrInvalidExpense = errors.New("invalid expense")

// Part is one user's amount in an expense: what they paid, or their share.
type Part struct {
	UserID string
	Amount money.Amount
}

// Pair is an unordered pair of users, stored with A < B (string order).
type Pair struct {
	A, B string
}

// PairOf returns the normalized pair of x and y and whether x is its A, so a
// debt "x owes y" of d is stored as +d when x is A and as -d otherwise.
func PairOf(x, y string) (Pair, bool) {
	if x <= y {
		return Pair{A: x, B: y}, true
	}
	return Pair{A: y, B: x}, false
}

// UserBalance holds one user's four running amounts in one currency.
type UserBalance struct {
	Paid     money.Amount // paid for others in expenses
	Owed     money.Amount // others paid for them in expenses
	Sent     money.Amount // settlement payments they made
	Received money.Amount // settlement payments they got
}

// Net returns Paid − Owed + Sent − Received; positive means others owe the user.
func (u UserBalance) Net() money.Amount {
	// A zero Amount{} has no currency; borrow one from a sibling so a
	// partly filled balance does not panic on a spurious mismatch.
	cur := currencyOf(u.Paid, u.Owed, u.Sent, u.Received)
	return orZero(u.Paid, cur).Sub(orZero(u.Owed, cur)).
		Add(orZero(u.Sent, cur)).Sub(orZero(u.Received, cur))
}

// IsZero reports whether all four amounts are zero.
func (u UserBalance) IsZero() bool {
	return u.Paid.IsZero() && u.Owed.IsZero() && u.Sent.IsZero() && u.Received.IsZero()
}

// neg returns the balance with every amount negated.
func (u UserBalance) neg() UserBalance {
	return UserBalance{Paid: u.Paid.Neg(), Owed: u.Owed.Neg(), Sent: u.Sent.Neg(), Received: u.Received.Neg()}
}

// zeroBalance returns a balance whose four amounts are zero of cur.
func zeroBalance(cur money.Currency) UserBalance {
	z := money.Zero(cur)
	return UserBalance{Paid: z, Owed: z, Sent: z, Received: z}
}

// Delta is how one write changes one currency's book.
type Delta struct {
	Currency money.Currency
	// Users holds, per user, the amounts to add (negative after Negate).
	Users map[string]UserBalance
	// Pairs holds, per pair, the amount to add to "A owes B" (negative: B owes A).
	Pairs map[Pair]money.Amount
}

// ExpenseDelta returns the change an expense makes: payers paid the total,
// shares say who benefits, and both must sum to the same positive total in
// cur, or it returns an error wrapping ErrInvalidExpense. Each user's paid
// minus share goes to Paid if positive, Owed if negative. Pair debts come
// from matching the largest debtor with the largest creditor (ties to the
// smaller id) for the smaller amount until all are matched, so at most
// #debtors + #creditors − 1 pairs change; with one payer, each beneficiary
// simply owes the payer their share.
func ExpenseDelta(cur money.Currency, payers, shares []Part) (Delta, error) {
	if cur.IsZero() {
		return Delta{}, fmt.Errorf("%w: no currency given", ErrInvalidExpense)
	}
	paid, err := partsByUser(cur, "payer", payers)
	if err != nil {
		return Delta{}, err
	}
	share, err := partsByUser(cur, "share", shares)
	if err != nil {
		return Delta{}, err
	}
	totalPaid, totalShares := sumValues(paid), sumValues(share)
	if totalPaid.Sign() <= 0 {
		return Delta{}, fmt.Errorf("%w: the payers paid %s in total, which must be greater than zero",
			ErrInvalidExpense, money.NewAmountBig(totalPaid, cur))
	}
	if totalPaid.Cmp(totalShares) != 0 {
		return Delta{}, fmt.Errorf("%w: the payers paid %s but the shares add up to %s",
			ErrInvalidExpense, money.NewAmountBig(totalPaid, cur), money.NewAmountBig(totalShares, cur))
	}

	d := Delta{Currency: cur, Users: map[string]UserBalance{}, Pairs: map[Pair]money.Amount{}}
	var bals []balance
	for id, p := range paid {
		v := new(big.Int).Set(p)
		if s, ok := share[id]; ok {
			v.Sub(v, s)
		}
		bals = appendBalance(bals, id, v)
	}
	for id, s := range share {
		if _, ok := paid[id]; !ok {
			bals = appendBalance(bals, id, new(big.Int).Neg(s))
		}
	}
	for _, b := range bals {
		ub := zeroBalance(cur)
		if b.v.Sign() > 0 {
			ub.Paid = money.NewAmountBig(b.v, cur)
		} else {
			ub.Owed = money.NewAmountBig(new(big.Int).Neg(b.v), cur)
		}
		d.Users[b.id] = ub
	}
	for _, m := range settleGreedy(bals) {
		addDebt(d.Pairs, cur, m.from, m.to, m.amount)
	}
	return d, nil
}

// SettlementDelta returns the change a completed payment of amount from
// "from" to "to" makes. It panics if from == to, either id is empty, amount
// is not positive or is not in cur: callers validate user input first, and
// a bad settlement must never be half-recorded.
func SettlementDelta(cur money.Currency, from, to string, amount money.Amount) Delta {
	switch {
	case from == "" || to == "":
		panic("ledger: settlement with an empty user id")
	case from == to:
		panic("ledger: settlement from a user to themselves")
	case amount.Currency() != cur:
		panic(fmt.Sprintf("ledger: %v: settlement in %s on a %s book", money.ErrCurrencyMismatch, amount.Currency(), cur))
	case amount.Sign() <= 0:
		panic(fmt.Sprintf("ledger: settlement of %s is not positive", amount))
	}
	fromB, toB := zeroBalance(cur), zeroBalance(cur)
	fromB.Sent = amount
	toB.Received = amount
	d := Delta{
		Currency: cur,
		Users:    map[string]UserBalance{from: fromB, to: toB},
		Pairs:    map[Pair]money.Amount{},
	}
	// Paying off debt lowers "from owes to" by the amount (and may flip it).
	addDebt(d.Pairs, cur, from, to, amount.Neg().Minor())
	return d
}

// Negate returns the delta that undoes d, as when an expense is deleted.
func (d Delta) Negate() Delta {
	n := Delta{
		Currency: d.Currency,
		Users:    make(map[string]UserBalance, len(d.Users)),
		Pairs:    make(map[Pair]money.Amount, len(d.Pairs)),
	}
	for id, u := range d.Users {
		n.Users[id] = u.neg()
	}
	for p, a := range d.Pairs {
		n.Pairs[p] = a.Neg()
	}
	return n
}

// Plus returns the delta that applies d and then o, in one currency, as
// when an expense is edited: the old effect negated plus the new one. Users
// and pairs whose amounts cancel out keep zero entries.
func (d Delta) Plus(o Delta) (Delta, error) {
	if d.Currency != o.Currency {
		return Delta{}, fmt.Errorf("%w: adding a %s delta to a %s one", ErrInvalidExpense, o.Currency.Code(), d.Currency.Code())
	}
	sum := Delta{Currency: d.Currency, Users: make(map[string]UserBalance, len(d.Users)), Pairs: make(map[Pair]money.Amount, len(d.Pairs))}
	for _, src := range []Delta{d, o} {
		for id, u := range src.Users {
			v, ok := sum.Users[id]
			if !ok {
				v = zeroBalance(d.Currency)
			}
			sum.Users[id] = UserBalance{
				Paid: v.Paid.Add(orZero(u.Paid, d.Currency)), Owed: v.Owed.Add(orZero(u.Owed, d.Currency)),
				Sent: v.Sent.Add(orZero(u.Sent, d.Currency)), Received: v.Received.Add(orZero(u.Received, d.Currency)),
			}
		}
		for p, a := range src.Pairs {
			v, ok := sum.Pairs[p]
			if !ok {
				v = money.Zero(d.Currency)
			}
			sum.Pairs[p] = v.Add(a)
		}
	}
	return sum, nil
}

// Affected lists, sorted, the users whose balance or debts applying d changes.
func (d Delta) Affected() []string {
	seen := map[string]bool{}
	for id, u := range d.Users {
		if !u.IsZero() {
			seen[id] = true
		}
	}
	for p, a := range d.Pairs {
		if !a.IsZero() {
			seen[p.A], seen[p.B] = true, true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// IsZero reports whether applying d would change no amount.
func (d Delta) IsZero() bool {
	for _, u := range d.Users {
		if !u.IsZero() {
			return false
		}
	}
	for _, a := range d.Pairs {
		if !a.IsZero() {
			return false
		}
	}
	return true
}

// partsByUser validates one side of an expense and indexes it by user.
func partsByUser(cur money.Currency, what string, parts []Part) (map[string]*big.Int, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no %ss", ErrInvalidExpense, what)
	}
	m := make(map[string]*big.Int, len(parts))
	for i, p := range parts {
		switch {
		case p.UserID == "":
			return nil, fmt.Errorf("%w: %s %d of %d has no user id", ErrInvalidExpense, what, i+1, len(parts))
		case p.Amount.Currency() != cur:
			return nil, fmt.Errorf("%w: %s %d of %d is in %q, not %s: %w",
				ErrInvalidExpense, what, i+1, len(parts), p.Amount.Currency().Code(), cur, money.ErrCurrencyMismatch)
		case p.Amount.Sign() < 0:
			return nil, fmt.Errorf("%w: %s %d of %d is negative (%s)", ErrInvalidExpense, what, i+1, len(parts), p.Amount)
		}
		if _, dup := m[p.UserID]; dup {
			return nil, fmt.Errorf("%w: user %s is listed twice as a %s", ErrInvalidExpense, p.UserID, what)
		}
		m[p.UserID] = p.Amount.Minor()
	}
	return m, nil
}

// sumValues adds up the values of m.
func sumValues(m map[string]*big.Int) *big.Int {
	s := new(big.Int)
	for _, v := range m {
		s.Add(s, v)
	}
	return s
}

// appendBalance appends a non-zero balance; users who paid exactly their
// share change nothing, so they get no entry.
func appendBalance(bs []balance, id string, v *big.Int) []balance {
	if v.Sign() == 0 {
		return bs
	}
	return append(bs, balance{id: id, v: v})
}

// addDebt adds "debtor owes creditor" of amount (minor units, may be
// negative) to the pair map, deleting the entry if it cancels out.
func addDebt(pairs map[Pair]money.Amount, cur money.Currency, debtor, creditor string, amount *big.Int) {
	p, debtorIsA := PairOf(debtor, creditor)
	v := new(big.Int).Set(amount)
	if !debtorIsA {
		v.Neg(v)
	}
	if old, ok := pairs[p]; ok {
		v.Add(v, old.Minor())
	}
	if v.Sign() == 0 {
		delete(pairs, p)
		return
	}
	pairs[p] = money.NewAmountBig(v, cur)
}

// balance is one user's signed position in minor units: positive means
// others owe them (creditor), negative means they owe (debtor).
type balance struct {
	id string
	v  *big.Int
}

// move is "from pays to amount" in minor units, amount > 0.
type move struct {
	from, to string
	amount   *big.Int
}

// settleGreedy repeatedly lets the largest debtor pay the largest creditor
// the smaller of the two amounts, ties going to the smaller user id. Each
// step clears at least one user, so k users need at most k−1 moves. bs must
// add up to zero and is not modified. The scan per step is O(k), fine for
// group sizes; a heap would only pay off for thousands of members.
func settleGreedy(bs []balance) []move {
	var debtors, creditors []balance
	for _, b := range bs {
		switch b.v.Sign() {
		case -1:
			debtors = append(debtors, balance{id: b.id, v: new(big.Int).Neg(b.v)})
		case 1:
			creditors = append(creditors, balance{id: b.id, v: new(big.Int).Set(b.v)})
		}
	}
	var moves []move
	for len(debtors) > 0 && len(creditors) > 0 {
		i, j := largest(debtors), largest(creditors)
		d, c := debtors[i], creditors[j]
		x := new(big.Int).Set(d.v)
		if c.v.Cmp(x) < 0 {
			x.Set(c.v)
		}
		moves = append(moves, move{from: d.id, to: c.id, amount: x})
		d.v.Sub(d.v, x)
		c.v.Sub(c.v, x)
		if d.v.Sign() == 0 {
			debtors = slices.Delete(debtors, i, i+1)
		}
		if c.v.Sign() == 0 {
			creditors = slices.Delete(creditors, j, j+1)
		}
	}
	return moves
}

// largest returns the index of the largest value in bs, the smaller id on ties.
func largest(bs []balance) int {
	best := 0
	for i := 1; i < len(bs); i++ {
		if c := bs[i].v.Cmp(bs[best].v); c > 0 || c == 0 && bs[i].id < bs[best].id {
			best = i
		}
	}
	return best
}

// currencyOf returns the first currency among as, or the zero Currency.
func currencyOf(as ...money.Amount) money.Currency {
	for _, a := range as {
		if !a.Currency().IsZero() {
			return a.Currency()
		}
	}
	return money.Currency{}
}

// orZero returns a, or zero of cur when a is the currency-less zero Amount{},
// so entries a caller left unset never trip the currency-mismatch panic.
func orZero(a money.Amount, cur money.Currency) money.Amount {
	if a.Currency().IsZero() && a.IsZero() {
		return money.Zero(cur)
	}
	return a
}
