package money

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  error
	}{
		{"0.9", "0.9", nil},
		{"1.1225", "1.1225", nil},
		{"123456789012", "123456789012", nil},
		{"0.000000123456789012", "0.000000123456789012", nil},
		{"1.23456789012000", "1.23456789012000", nil}, // trailing zeros are not significant
		{"1.234567890123", "", ErrRatePrecision},
		{"1234567890123", "", ErrRatePrecision},
		{"0", "", ErrNotPositive},
		{"-1.5", "", ErrNotPositive},
		{"1e3", "", ErrSyntax},
	} {
		t.Run(tc.in, func(t *testing.T) {
			d, err := ParseRate(tc.in)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.String())
		})
	}
}

func TestDeriveRate(t *testing.T) {
	dec := func(s string) Decimal { d, err := ParseDecimal(s); require.NoError(t, err); return d }
	for _, tc := range []struct{ name, per1X, per1Y, want string }{
		{"EUR→USD is the figure itself", "1", "1.1225", "1.1225"},
		{"USD→EUR is a division", "1.1225", "1", "0.890868596882"},
		{"JPY→CHF is a ratio", "171.94", "0.9634", "0.00560311736652"},
		{"CHF→JPY", "0.9634", "171.94", "178.472078057"},
		{"exact ratio keeps no trailing zeros", "1.25", "1", "0.8"},
		{"half to even, down", "3", "0.0000000000025", "0.000000000000833333333333"},
		{"a tie goes down to even", "1", "1.000000000005", "1"},
		{"a tie goes up to even", "1", "1.000000000015", "1.00000000002"},
		{"a tie carries into a new digit", "1", "9.999999999995", "10"},
		{"big", "0.001", "123456789", "123456789000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := DeriveRate(dec(tc.per1X), dec(tc.per1Y))
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.String())
			require.NoError(t, CheckRate(r))
		})
	}
	_, err := DeriveRate(dec("0"), dec("1"))
	require.ErrorIs(t, err, ErrNotPositive)
}

func TestConvert(t *testing.T) {
	usd, eur, jpy, ton, kwd := MustCurrency("USD"), MustCurrency("EUR"), MustCurrency("JPY"), MustCurrency("TON"), MustCurrency("KWD")
	for _, tc := range []struct {
		amount string
		from   Currency
		rate   string
		to     Currency
		want   string
	}{
		{"54.00", usd, "0.9", eur, "48.60"},
		{"10.00", usd, "0.890868596882", eur, "8.91"},
		{"0.05", eur, "0.5", usd, "0.02"}, // 0.025 ties to even: 0.02
		{"0.07", eur, "0.5", usd, "0.04"}, // 0.035 ties to even: 0.04
		{"1500", jpy, "0.00560311736652", usd, "8.40"},
		{"100.00", eur, "0.358423", ton, "35.842300000"},
		{"1.000000001", ton, "2.5", kwd, "2.500"},
		{"0.01", usd, "0.0001", eur, "0.00"},
	} {
		t.Run(tc.amount+tc.from.Code()+"@"+tc.rate, func(t *testing.T) {
			a, err := ParseAmount(tc.amount, tc.from)
			require.NoError(t, err)
			r, err := ParseRate(tc.rate)
			require.NoError(t, err)
			got := Convert(a, r, tc.to)
			assert.Equal(t, tc.want, got.String())
			assert.Equal(t, tc.to, got.Currency())
		})
	}
}

func FuzzRoundRate(f *testing.F) {
	f.Add(int64(1), int64(3), uint8(0))
	f.Add(int64(11225), int64(10000), uint8(0))
	f.Add(int64(999999999999), int64(1), uint8(30))
	f.Add(int64(5), int64(2), uint8(12))
	f.Fuzz(func(t *testing.T, num, den int64, shift uint8) {
		if num <= 0 || den <= 0 {
			return
		}
		r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(num), pow10(int(shift%40))), big.NewInt(den))
		d := RoundRate(r)
		require.NoError(t, CheckRate(d))
		// |d − r| ≤ half a unit in the 12th significant digit of d.
		got := new(big.Rat).SetFrac(d.c(), pow10(int(d.scale)))
		diff := new(big.Rat).Sub(got, r)
		diff.Abs(diff)
		sd := significantDigits(d.c())
		// the unit of the last kept digit: 10^(len(coef) - RateDigits - scale)
		e := len(d.c().String()) - RateDigits - int(d.scale)
		unit := new(big.Rat).SetInt(pow10(max(e, 0)))
		if e < 0 {
			unit.SetFrac(big.NewInt(1), pow10(-e))
		}
		half := new(big.Rat).Quo(unit, big.NewRat(2, 1))
		require.LessOrEqual(t, diff.Cmp(half), 0, "%s rounded to %s (%d digits)", r.FloatString(30), d, sd)
		// A rate that already fits is kept as it is.
		require.Equal(t, 0, RoundRate(got).Cmp(d))
	})
}

func FuzzConvert(f *testing.F) {
	f.Add(int64(5400), uint8(0), int64(9), int32(1), uint8(0), uint8(0))
	f.Add(int64(5), uint8(0), int64(5), int32(1), uint8(0), uint8(1))
	f.Add(int64(123456789), uint8(10), int64(890868596882), int32(12), uint8(4), uint8(2))
	f.Fuzz(func(t *testing.T, minor int64, scaleUp uint8, coef int64, scale int32, from, to uint8) {
		if coef <= 0 || scale < 0 || scale > 30 {
			return
		}
		rate := NewDecimal(coef, scale)
		if CheckRate(rate) != nil {
			return
		}
		a := fuzzTotal(minor, scaleUp, from)
		target := fuzzCurrencies[int(to)%len(fuzzCurrencies)]
		got := Convert(a, rate, target)
		// Oracle: the exact product in target minor units, by big.Rat.
		exact := new(big.Rat).SetFrac(a.Minor(), pow10(a.cur.digits))
		exact.Mul(exact, new(big.Rat).SetFrac(rate.c(), pow10(int(rate.scale))))
		exact.Mul(exact, new(big.Rat).SetInt(pow10(target.digits)))
		diff := new(big.Rat).Sub(new(big.Rat).SetInt(got.Minor()), exact)
		c := new(big.Rat).Abs(diff).Cmp(big.NewRat(1, 2))
		require.LessOrEqual(t, c, 0, "%s %s × %s = %s %s", a, a.cur.code, rate, got, target.code)
		if c == 0 {
			require.Equal(t, uint(0), new(big.Int).Abs(got.Minor()).Bit(0), "a tie goes to the even unit")
		}
		// Conversion is symmetric in sign.
		require.Equal(t, 0, Convert(a.Neg(), rate, target).Cmp(got.Neg()))
	})
}

func TestConvertBack(t *testing.T) {
	eur, ton, usd, jpy := MustCurrency("EUR"), MustCurrency("TON"), MustCurrency("USD"), MustCurrency("JPY")
	for _, tc := range []struct {
		amount string
		cur    Currency
		rate   string
		to     Currency
		want   string
	}{
		{"100.00", eur, "6.8764", ton, "14.542493165"},
		{"48.60", eur, "0.9", usd, "54.00"},
		{"0.01", eur, "6.8764", ton, "0.001454249"},
		{"1000", jpy, "171.94", eur, "5.82"},
	} {
		a, err := ParseAmount(tc.amount, tc.cur)
		require.NoError(t, err)
		r, err := ParseRate(tc.rate)
		require.NoError(t, err)
		back := ConvertBack(a, r, tc.to)
		assert.Equal(t, tc.want, back.String())
	}
}

func FuzzConvertBack(f *testing.F) {
	f.Add(int64(10000), int64(68764), int32(4))
	f.Add(int64(1), int64(1), int32(0))
	f.Add(int64(99999999), int64(123456789012), int32(11))
	f.Fuzz(func(t *testing.T, minor, coef int64, scale int32) {
		if coef <= 0 || scale < 0 || scale > 20 {
			return
		}
		rate := NewDecimal(coef, scale)
		if CheckRate(rate) != nil {
			return
		}
		eur, ton := MustCurrency("EUR"), MustCurrency("TON")
		a := NewAmount(minor, eur)
		back := ConvertBack(a, rate, ton)
		// Within half a nanoton of the exact quotient.
		exact := new(big.Rat).Quo(new(big.Rat).SetFrac(a.Minor(), pow10(2)), rate.Rat())
		exact.Mul(exact, new(big.Rat).SetInt(pow10(9)))
		diff := new(big.Rat).Sub(new(big.Rat).SetInt(back.Minor()), exact)
		require.LessOrEqual(t, diff.Abs(diff).Cmp(big.NewRat(1, 2)), 0)
		// While a nanoton is worth less than a cent, the round trip is exact.
		if rate.Cmp(NewDecimal(1, -7)) < 0 {
			require.Equal(t, 0, Convert(back, rate, eur).Cmp(a), "%s EUR → %s TON at %s", a, back, rate)
		}
	})
}
