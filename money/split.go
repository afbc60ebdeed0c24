package money

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
)

// The split functions return one part per participant, in input order, and
// the parts always add up exactly to the total. Whole minor units that do not
// divide evenly are shared out by the largest-remainder method, ties going to
// the earlier participant, so the same input always gives the same output.

// SplitEqual splits total into n equal parts; leftover minor units go to the
// first parts, so 10.00 over 3 is 3.34, 3.33, 3.33.
func SplitEqual(total Amount, n int) ([]Amount, error) {
	if err := checkTotal(total); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: a split needs at least one participant", ErrNoParticipants)
	}
	// With equal weights every remainder ties, so largest remainder reduces to
	// "the first total mod n parts get one more unit"; no need to sort.
	q, r := new(big.Int).QuoRem(total.m(), big.NewInt(int64(n)), new(big.Int))
	extra := int(r.Int64()) // r < n, so it fits
	q1 := new(big.Int).Add(q, big.NewInt(1))
	parts := make([]Amount, n)
	for i := range parts {
		// Parts share the two big.Ints; that is safe because Amounts are immutable.
		if i < extra {
			parts[i] = Amount{minor: q1, cur: total.cur}
		} else {
			parts[i] = Amount{minor: q, cur: total.cur}
		}
	}
	return parts, nil
}

// SplitWeighted splits total in proportion to weights, such as nights stayed
// (2 and 3) or shares (1.5 and 1); weights may have any number of decimals,
// must not be negative, and must not all be zero (ErrBadWeight).
func SplitWeighted(total Amount, weights []Decimal) ([]Amount, error) {
	if err := checkTotal(total); err != nil {
		return nil, err
	}
	if len(weights) == 0 {
		return nil, fmt.Errorf("%w: a split needs at least one participant", ErrNoParticipants)
	}
	for i, w := range weights {
		if w.Sign() < 0 {
			return nil, fmt.Errorf("%w: weight %d of %d is negative (%s)", ErrBadWeight, i+1, len(weights), w)
		}
	}
	ints := commonScale(weights)
	sum := new(big.Int)
	for _, w := range ints {
		sum.Add(sum, w)
	}
	if sum.Sign() == 0 {
		return nil, fmt.Errorf("%w: all weights are zero", ErrBadWeight)
	}
	return largestRemainder(total, ints, sum), nil
}

// SplitPercentages splits total by percentages, each from 0 to 100
// (ErrBadWeight), which must add up to exactly 100 (ErrPercentSum): we do not
// round 99.99 up, because that usually means the user mistyped.
func SplitPercentages(total Amount, pcts []Decimal) ([]Amount, error) {
	if err := checkTotal(total); err != nil {
		return nil, err
	}
	if len(pcts) == 0 {
		return nil, fmt.Errorf("%w: a split needs at least one participant", ErrNoParticipants)
	}
	hundred := NewDecimal(100, 0)
	for i, p := range pcts {
		if p.Sign() < 0 || p.Cmp(hundred) > 0 {
			return nil, fmt.Errorf("%w: percentage %d of %d is %s, but each must be between 0 and 100",
				ErrBadWeight, i+1, len(pcts), p)
		}
	}
	ints := commonScale(pcts)
	sum := new(big.Int)
	for _, w := range ints {
		sum.Add(sum, w)
	}
	scale := maxScale(pcts)
	if (Decimal{coef: sum, scale: scale}).Cmp(hundred) != 0 {
		return nil, fmt.Errorf("%w: they add up to %s", ErrPercentSum, Decimal{coef: sum, scale: scale})
	}
	return largestRemainder(total, ints, sum), nil
}

// CheckExactSplit checks parts a user entered by hand: each must be in the
// total's currency (ErrCurrencyMismatch) and not negative (ErrNegative), and
// together they must add up exactly to total (ErrSplitSum).
func CheckExactSplit(total Amount, parts []Amount) error {
	if err := checkTotal(total); err != nil {
		return err
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: a split needs at least one participant", ErrNoParticipants)
	}
	sum := new(big.Int)
	for i, p := range parts {
		if p.cur != total.cur {
			return fmt.Errorf("%w: split %d of %d is in %s but the amount is in %s",
				ErrCurrencyMismatch, i+1, len(parts), currencyName(p.cur), currencyName(total.cur))
		}
		if p.Sign() < 0 {
			return fmt.Errorf("split %d of %d %w: got %s %s", i+1, len(parts), ErrNegative, p, p.cur.code)
		}
		sum.Add(sum, p.m())
	}
	if sum.Cmp(total.m()) != 0 {
		return fmt.Errorf("%w: they add up to %s but the amount is %s %s",
			ErrSplitSum, Amount{minor: sum, cur: total.cur}, total, total.cur.code)
	}
	return nil
}

// checkTotal rejects totals no split can share out.
func checkTotal(total Amount) error {
	if total.cur.IsZero() {
		return fmt.Errorf("%w: the amount has no currency", ErrUnknownCurrency)
	}
	if total.Sign() < 0 {
		return fmt.Errorf("amount to split %w: got %s %s", ErrNegative, total, total.cur.code)
	}
	return nil
}

// currencyName names c in messages, including the zero Currency.
func currencyName(c Currency) string {
	if c.IsZero() {
		return "no currency"
	}
	return c.code
}

// maxScale returns the largest scale among ds.
func maxScale(ds []Decimal) int32 {
	var s int32
	for _, d := range ds {
		s = max(s, d.scale)
	}
	return s
}

// commonScale returns the coefficients of ds brought exactly to their largest
// scale, so weights like 1.5 and 2 become the integers 15 and 20.
func commonScale(ds []Decimal) []*big.Int {
	s := maxScale(ds)
	out := make([]*big.Int, len(ds))
	for i, d := range ds {
		out[i] = d.rescaled(s) // read-only; only used as an operand below
	}
	return out
}

// largestRemainder splits total by non-negative integer weights with
// positive sum: part i is floor(T×w_i/W) minor units, and the leftover units
// go one each to the largest remainders T×w_i mod W, ties to the lower index.
// Each part is therefore within one minor unit of its exact share, and a
// zero weight never receives a unit.
func largestRemainder(total Amount, weights []*big.Int, sum *big.Int) []Amount {
	n := len(weights)
	quos := make([]*big.Int, n)
	rems := make([]*big.Int, n)
	left := new(big.Int).Set(total.m())
	for i, w := range weights {
		prod := new(big.Int).Mul(total.m(), w)
		quos[i], rems[i] = prod.QuoRem(prod, sum, new(big.Int))
		left.Sub(left, quos[i])
	}
	// left = Σrems / W < n, so it fits in an int.
	leftover := int(left.Int64())
	if leftover > 0 {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := rems[b].Cmp(rems[a]); c != 0 {
				return c // larger remainder first
			}
			return cmp.Compare(a, b) // tie: input order
		})
		for _, i := range order[:leftover] {
			quos[i].Add(quos[i], big.NewInt(1))
		}
	}
	parts := make([]Amount, n)
	for i, q := range quos {
		parts[i] = Amount{minor: q, cur: total.cur}
	}
	return parts
}
