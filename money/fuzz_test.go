package money

import (
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decimalGrammar is the documented syntax, used as an independent oracle for
// the hand-written parser.
var decimalGrammar = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "-0.00", "12.50", "007.10", "-3.1", "0.500000000", "1500",
		"", "-", ".5", "5.", "+5", "1e3", "1,000", " 1", "1_0", "0x1f",
		strings.Repeat("9", 64), strings.Repeat("9", 65), "-0." + strings.Repeat("0", 61) + "1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		valid := len(s) <= maxDecimalLen && decimalGrammar.MatchString(s)
		if err != nil {
			require.ErrorIs(t, err, ErrSyntax)
			require.False(t, valid, "rejected valid input %q: %v", s, err)
			require.True(t, d.IsZero())
			return
		}
		require.True(t, valid, "accepted invalid input %q", s)

		// The value is the one written: compare with big.Rat's own parser.
		want, ok := new(big.Rat).SetString(s)
		require.True(t, ok)
		got := new(big.Rat).SetFrac(d.c(), pow10(int(d.Scale())))
		require.Equal(t, 0, want.Cmp(got), "%q parsed as %s", s, d)
		require.Equal(t, want.Sign(), d.Sign())
		if i := strings.IndexByte(s, '.'); i >= 0 {
			require.Equal(t, int32(len(s)-i-1), d.Scale())
		} else {
			require.Equal(t, int32(0), d.Scale())
		}

		// parse → String → parse round-trips to an equal value and scale.
		str := d.String()
		require.NotEqual(t, "-0", strings.TrimRight(strings.TrimRight(str, "0"), "."), "negative zero %q", str)
		d2, err := ParseDecimal(str)
		require.NoError(t, err, "String() gave unparsable %q", str)
		require.Equal(t, 0, d.Cmp(d2))
		require.Equal(t, d.Scale(), d2.Scale())
		require.Equal(t, str, d2.String())
	})
}

// fuzzCurrencies are picked by index so every digit count gets exercised.
var fuzzCurrencies = []Currency{
	MustCurrency("USD"), MustCurrency("JPY"), MustCurrency("KWD"), MustCurrency("CLF"), MustCurrency("TON"),
}

// fuzzTotal builds a total from fuzz input; scaleUp lets totals go far past
// int64, as 10^15 TON does.
func fuzzTotal(minor int64, scaleUp, cur uint8) Amount {
	m := new(big.Int).Mul(big.NewInt(minor), pow10(int(scaleUp%20)))
	return NewAmountBig(m, fuzzCurrencies[int(cur)%len(fuzzCurrencies)])
}

// fuzzDecimals parses comma-separated decimals, reporting false for input
// that is not a usable list.
func fuzzDecimals(s string) ([]Decimal, bool) {
	if s == "" {
		return nil, true
	}
	fields := strings.Split(s, ",")
	if len(fields) > 64 {
		return nil, false
	}
	out := make([]Decimal, len(fields))
	for i, f := range fields {
		d, err := ParseDecimal(f)
		if err != nil {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}

// checkProportional asserts the split invariants: one part per weight, same
// currency, no negative part, exact sum, and each part within one minor unit
// of its exact share total×w/W (that is |part×W − total×w| < W).
func checkProportional(t *testing.T, total Amount, weights []Decimal, parts []Amount) {
	t.Helper()
	require.Len(t, parts, len(weights))
	ints := commonScale(weights)
	sum := new(big.Int)
	for _, w := range ints {
		sum.Add(sum, w)
	}
	for i, p := range parts {
		require.Equal(t, total.Currency(), p.Currency())
		require.GreaterOrEqual(t, p.Sign(), 0, "part %d is negative", i)
		diff := new(big.Int).Mul(p.Minor(), sum)
		diff.Sub(diff, new(big.Int).Mul(total.Minor(), ints[i]))
		require.Negative(t, diff.CmpAbs(sum), "part %d = %s is a unit or more off its share", i, p)
		if ints[i].Sign() == 0 {
			require.True(t, p.IsZero(), "zero weight got %s", p)
		}
	}
	require.Equal(t, 0, Sum(total.Currency(), parts...).Cmp(total), "parts do not add up")
}

func FuzzSplitWeighted(f *testing.F) {
	f.Add(int64(10000), uint8(0), uint8(0), "1,1,1")
	f.Add(int64(1001), uint8(0), uint8(0), "2,3")
	f.Add(int64(2), uint8(0), uint8(0), "1,2,1")
	f.Add(int64(1), uint8(15), uint8(4), "1.5,0,0.333,7")
	f.Add(int64(7), uint8(0), uint8(1), "0.000000000000000000001,3")
	f.Add(int64(5), uint8(0), uint8(2), "0,0")
	f.Add(int64(5), uint8(0), uint8(3), "1,-1")
	f.Add(int64(-5), uint8(0), uint8(0), "1")
	f.Add(int64(9223372036854775807), uint8(19), uint8(4), "99999999999999999999,1,0.5")
	f.Fuzz(func(t *testing.T, minor int64, scaleUp, cur uint8, ws string) {
		weights, ok := fuzzDecimals(ws)
		if !ok {
			return
		}
		total := fuzzTotal(minor, scaleUp, cur)
		parts, err := SplitWeighted(total, weights)

		anyNeg, allZero := false, true
		for _, w := range weights {
			anyNeg = anyNeg || w.Sign() < 0
			allZero = allZero && w.IsZero()
		}
		switch {
		case total.Sign() < 0:
			assert.ErrorIs(t, err, ErrNegative)
		case len(weights) == 0:
			assert.ErrorIs(t, err, ErrNoParticipants)
		case anyNeg || allZero:
			assert.ErrorIs(t, err, ErrBadWeight)
		default:
			require.NoError(t, err)
			checkProportional(t, total, weights, parts)
			return
		}
		assert.Nil(t, parts)
	})
}

func FuzzSplitPercentages(f *testing.F) {
	f.Add(int64(10), uint8(0), uint8(1), "33.33,33.33,33.34")
	f.Add(int64(1000), uint8(0), uint8(0), "33.3333,33.3333,33.3334")
	f.Add(int64(1), uint8(0), uint8(0), "50,50")
	f.Add(int64(1), uint8(18), uint8(4), "12.5,87.5")
	f.Add(int64(100), uint8(0), uint8(0), "33.33,33.33,33.33")
	f.Add(int64(100), uint8(0), uint8(0), "150,-50")
	f.Add(int64(100), uint8(0), uint8(2), "100,0,0.0")
	f.Fuzz(func(t *testing.T, minor int64, scaleUp, cur uint8, ps string) {
		pcts, ok := fuzzDecimals(ps)
		if !ok {
			return
		}
		total := fuzzTotal(minor, scaleUp, cur)
		parts, err := SplitPercentages(total, pcts)

		hundred := NewDecimal(100, 0)
		outOfRange := false
		sum := new(big.Int)
		for i, w := range commonScale(pcts) {
			outOfRange = outOfRange || pcts[i].Sign() < 0 || pcts[i].Cmp(hundred) > 0
			sum.Add(sum, w)
		}
		sumIs100 := Decimal{coef: sum, scale: maxScale(pcts)}.Cmp(hundred) == 0
		switch {
		case total.Sign() < 0:
			assert.ErrorIs(t, err, ErrNegative)
		case len(pcts) == 0:
			assert.ErrorIs(t, err, ErrNoParticipants)
		case outOfRange:
			assert.ErrorIs(t, err, ErrBadWeight)
		case !sumIs100:
			assert.ErrorIs(t, err, ErrPercentSum)
		default:
			require.NoError(t, err)
			checkProportional(t, total, pcts, parts)
			return
		}
		assert.Nil(t, parts)

		// Random percentages rarely add up to 100, so also try the list with
		// its last entry replaced by whatever makes it add up.
		if total.Sign() < 0 || len(pcts) == 0 {
			return
		}
		s := maxScale(pcts)
		last := new(big.Int).Mul(big.NewInt(100), pow10(int(s)))
		for _, w := range commonScale(pcts)[:len(pcts)-1] {
			last.Sub(last, w)
		}
		fixed := append(pcts[:len(pcts)-1:len(pcts)-1], Decimal{coef: last, scale: s})
		for _, p := range fixed {
			if p.Sign() < 0 || p.Cmp(hundred) > 0 {
				return
			}
		}
		parts, err = SplitPercentages(total, fixed)
		require.NoError(t, err, "percentages %v", fixed)
		checkProportional(t, total, fixed, parts)
	})
}

func FuzzSplitEqual(f *testing.F) {
	f.Add(int64(1000), uint8(0), int16(3), uint8(0))
	f.Add(int64(1), uint8(0), int16(3), uint8(0))
	f.Add(int64(0), uint8(0), int16(1), uint8(1))
	f.Add(int64(1), uint8(15), int16(7), uint8(4))
	f.Add(int64(5), uint8(0), int16(0), uint8(2))
	f.Add(int64(-5), uint8(0), int16(2), uint8(3))
	f.Fuzz(func(t *testing.T, minor int64, scaleUp uint8, n int16, cur uint8) {
		total := fuzzTotal(minor, scaleUp, cur)
		parts, err := SplitEqual(total, int(n))
		switch {
		case total.Sign() < 0:
			assert.ErrorIs(t, err, ErrNegative)
			return
		case n < 1:
			assert.ErrorIs(t, err, ErrNoParticipants)
			return
		}
		require.NoError(t, err)
		require.Len(t, parts, int(n))
		floor := new(big.Int).Quo(total.Minor(), big.NewInt(int64(n)))
		ceil := new(big.Int).Add(floor, big.NewInt(1))
		for i, p := range parts {
			require.Equal(t, total.Currency(), p.Currency())
			m := p.Minor()
			require.True(t, m.Cmp(floor) == 0 || m.Cmp(ceil) == 0, "part %d = %s", i, p)
			if i > 0 {
				require.LessOrEqual(t, p.Cmp(parts[i-1]), 0, "leftover units must go to the first parts")
			}
		}
		require.Equal(t, 0, Sum(total.Currency(), parts...).Cmp(total), "parts do not add up")
	})
}
