package money

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitBillExamples(t *testing.T) {
	usd := MustCurrency("USD")
	amt := func(s string) Amount { return mustAmount(t, s, usd) }
	pct := func(s string) *Decimal { d, err := ParseDecimal(s); require.NoError(t, err); return &d }
	ptr := func(a Amount) *Amount { return &a }
	// The docs/money.md example: pizza 24.00 for Ann and Ben, wine 30.00
	// for Ben and Cy, salad 9.00 for Cy; tax 8.875%, tip 9.00.
	pizza, _ := SplitEqual(amt("24.00"), 2)
	wine, _ := SplitEqual(amt("30.00"), 2)
	lines := []BillLine{
		{Amount: amt("24.00"), People: []int{0, 1}, Parts: pizza},
		{Amount: amt("30.00"), People: []int{1, 2}, Parts: wine},
		{Amount: amt("9.00"), People: []int{2}, Parts: []Amount{amt("9.00")}},
	}
	b, err := SplitBill(usd, 3, lines, []BillAdjustment{{Percent: pct("8.875")}, {Amount: ptr(amt("9.00"))}})
	require.NoError(t, err)
	assert.Equal(t, "63.00", b.Subtotal.String())
	assert.Equal(t, []string{"5.59", "9.00"}, strs(t, Sum(usd, b.Adjustments...), b.Adjustments))
	assert.Equal(t, "77.59", b.Total.String())
	assert.Equal(t, []string{"12.00", "27.00", "24.00"}, strs(t, b.Subtotal, b.Lines))
	assert.Equal(t, []string{"14.78", "33.25", "29.56"}, strs(t, b.Total, b.Shares))

	// A discount takes off, pro rata too; without adjustments the shares are the lines.
	b, err = SplitBill(usd, 3, lines, []BillAdjustment{{Percent: pct("10"), Discount: true}})
	require.NoError(t, err)
	assert.Equal(t, "-6.30", b.Adjustments[0].String())
	assert.Equal(t, []string{"10.80", "24.30", "21.60"}, strs(t, b.Total, b.Shares))
	b, err = SplitBill(usd, 4, lines, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"12.00", "27.00", "24.00", "0.00"}, strs(t, b.Total, b.Shares))

	// Half to even: 10% of 0.25 is 0.02, of 0.35 is 0.04.
	assert.Equal(t, "0.02", PercentOf(amt("0.25"), *pct("10")).String())
	assert.Equal(t, "0.04", PercentOf(amt("0.35"), *pct("10")).String())

	_, err = SplitBill(usd, 3, lines, []BillAdjustment{{Amount: ptr(amt("63.00")), Discount: true}})
	assert.ErrorIs(t, err, ErrBillTotal)
	_, err = SplitBill(usd, 3, lines, []BillAdjustment{{Percent: pct("100.01")}})
	assert.ErrorIs(t, err, ErrBadWeight)
	_, err = SplitBill(usd, 3, nil, nil)
	assert.ErrorIs(t, err, ErrNoParticipants)
	_, err = SplitBill(usd, 3, []BillLine{{Amount: amt("1.00"), People: []int{0}, Parts: []Amount{amt("0.99")}}}, nil)
	assert.ErrorIs(t, err, ErrSplitSum)
}

// TestSplitBillProperties is the property issue 37 asks for: for random
// bills (lines split EQUAL, EXACT, PERCENTAGE or SHARES among random people,
// fixed and percentage adjustments, discounts, in currencies of 0, 2, 3 and
// 9 decimals), the shares add up to the total in minor units, and each
// person's share is their lines plus their pro-rata part of the adjustments
// within one minor unit.
func TestSplitBillProperties(t *testing.T) {
	for seed := range uint64(3000) {
		checkRandomBill(t, seed)
	}
}

func FuzzSplitBill(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkRandomBill(t, seed) })
}

// checkRandomBill builds the bill of seed with the split functions and
// checks SplitBill's properties on it.
func checkRandomBill(t *testing.T, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 37))
	cur := []Currency{MustCurrency("JPY"), MustCurrency("USD"), MustCurrency("KWD"), MustCurrency("TON")}[r.IntN(4)]
	people := 1 + r.IntN(8)
	unit := pow10(cur.digits)
	randAmount := func() Amount {
		// 1 minor unit up to about 10^6 major units, often small.
		limit := new(big.Int).Mul(big.NewInt(int64(1+r.IntN(1_000_000))), unit)
		if r.IntN(3) == 0 {
			limit = big.NewInt(int64(1 + r.IntN(20)))
		}
		return Amount{minor: big.NewInt(1 + r.Int64N(limit.Int64())), cur: cur} // below 10^16: fits
	}
	var lines []BillLine
	for range 1 + r.IntN(6) {
		amount := randAmount()
		who := r.Perm(people)[:1+r.IntN(people)]
		var parts []Amount
		var err error
		switch r.IntN(4) {
		case 0:
			parts, err = SplitEqual(amount, len(who))
		case 1: // EXACT: a random partition
			cuts := make([]*big.Int, len(who))
			rest := new(big.Int).Set(amount.m())
			for k := range who[:len(who)-1] {
				cuts[k] = big.NewInt(r.Int64N(rest.Int64() + 1))
				rest.Sub(rest, cuts[k])
			}
			cuts[len(who)-1] = rest
			for _, c := range cuts {
				parts = append(parts, Amount{minor: c, cur: cur})
			}
		case 2: // PERCENTAGE: hundredths adding up to 100
			left := int64(10000)
			pcts := make([]Decimal, len(who))
			for k := range who {
				v := left
				if k < len(who)-1 {
					v = r.Int64N(left + 1)
				}
				left -= v
				pcts[k] = NewDecimal(v, 2)
			}
			parts, err = SplitPercentages(amount, pcts)
		default: // SHARES: weights with one decimal, at least one positive
			ws := make([]Decimal, len(who))
			for k := range who {
				ws[k] = NewDecimal(r.Int64N(50), 1)
			}
			ws[0] = NewDecimal(1+r.Int64N(50), 1)
			parts, err = SplitWeighted(amount, ws)
		}
		require.NoError(t, err)
		lines = append(lines, BillLine{Amount: amount, People: who, Parts: parts})
	}
	var adjustments []BillAdjustment
	for range r.IntN(4) {
		a := BillAdjustment{Discount: r.IntN(3) == 0}
		if r.IntN(2) == 0 {
			p := NewDecimal(1+r.Int64N(3000), int32(r.IntN(4))) // 0.001% to 3000%, capped below
			if p.Cmp(NewDecimal(100, 0)) > 0 {
				p = NewDecimal(100, 0)
			}
			a.Percent = &p
		} else {
			v := randAmount()
			a.Amount = &v
		}
		adjustments = append(adjustments, a)
	}

	b, err := SplitBill(cur, people, lines, adjustments)
	if errors.Is(err, ErrBillTotal) {
		return // discounts at or beyond the lines: refused, nothing to check
	}
	require.NoError(t, err, "seed %d", seed)
	again, _ := SplitBill(cur, people, lines, adjustments)
	require.Equal(t, b, again, "seed %d: the same bill splits the same way", seed)

	S := b.Subtotal.m()
	require.Zero(t, Sum(cur, b.Lines...).Cmp(b.Subtotal), "seed %d: lines add up to the subtotal", seed)
	require.Zero(t, Sum(cur, b.Shares...).Cmp(b.Total), "seed %d: shares add up to the total", seed)
	adjTotal := Sum(cur, b.Adjustments...)
	require.Zero(t, b.Subtotal.Add(adjTotal).Cmp(b.Total), "seed %d: total is lines plus adjustments", seed)
	for i := range people {
		require.GreaterOrEqual(t, b.Shares[i].Sign(), 0, "seed %d: person %d", seed, i)
		// |share − lines − adj×lines/S| < 1 unit  ⇔  |S×(share − lines) − adj×lines| < S
		d := new(big.Int).Mul(S, new(big.Int).Sub(b.Shares[i].m(), b.Lines[i].m()))
		d.Sub(d, new(big.Int).Mul(adjTotal.m(), b.Lines[i].m()))
		require.Negative(t, d.Abs(d).Cmp(S), "seed %d: person %d's share %s is more than a unit from lines %s plus their part of %s",
			seed, i, b.Shares[i], b.Lines[i], adjTotal)
	}
	for n, a := range adjustments {
		got := new(big.Int).Abs(b.Adjustments[n].m())
		if a.Amount != nil {
			require.Zero(t, got.Cmp(a.Amount.m()), "seed %d: a fixed adjustment comes to itself", seed)
			continue
		}
		// |got − S×p/100| ≤ 1/2  ⇔  |200×10^scale×got − 2×S×coef| ≤ 100×10^scale
		scale := pow10(int(a.Percent.scale))
		lhs := new(big.Int).Mul(got, new(big.Int).Mul(big.NewInt(200), scale))
		lhs.Sub(lhs, new(big.Int).Mul(big.NewInt(2), new(big.Int).Mul(S, a.Percent.c())))
		require.LessOrEqual(t, lhs.Abs(lhs).Cmp(new(big.Int).Mul(big.NewInt(100), scale)), 0, "seed %d: %s%% of %s came to %s", seed, a.Percent, b.Subtotal, got)
	}
}
