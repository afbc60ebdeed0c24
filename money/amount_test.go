package money

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	usd = MustCurrency("USD")
	eur = MustCurrency("EUR")
	jpy = MustCurrency("JPY")
	kwd = MustCurrency("KWD")
	clf = MustCurrency("CLF")
	ton = MustCurrency("TON")
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in    string
		cur   Currency
		minor string
		str   string
	}{
		{"20", usd, "2000", "20.00"},
		{"20.5", usd, "2050", "20.50"},
		{"20.50", usd, "2050", "20.50"},
		{"-3.1", usd, "-310", "-3.10"},
		{"0", usd, "0", "0.00"},
		{"-0.00", usd, "0", "0.00"},
		{"1500", jpy, "1500", "1500"},
		{"-7", jpy, "-7", "-7"},
		{"1.234", kwd, "1234", "1.234"},
		{"1.5", kwd, "1500", "1.500"},
		{"0.0001", clf, "1", "0.0001"},
		{"0.5", ton, "500000000", "0.500000000"},
		{"0.000000001", ton, "1", "0.000000001"},
		{"1000000000000000", ton, "1000000000000000000000000", "1000000000000000.000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.in+" "+tt.cur.Code(), func(t *testing.T) {
			a, err := ParseAmount(tt.in, tt.cur)
			require.NoError(t, err)
			assert.Equal(t, tt.minor, a.Minor().String())
			assert.Equal(t, tt.str, a.String())
			assert.Equal(t, tt.cur, a.Currency())
			assert.Equal(t, int32(tt.cur.Digits()), a.Decimal().Scale())
			assert.Equal(t, tt.str, a.Decimal().String())
		})
	}
}

func TestParseAmountRejects(t *testing.T) {
	tests := []struct {
		in   string
		cur  Currency
		want error
	}{
		{"1500.0", jpy, ErrTooManyDecimals}, // judged on written decimals, even zeros
		{"1.5", jpy, ErrTooManyDecimals},
		{"20.505", usd, ErrTooManyDecimals},
		{"20.500", usd, ErrTooManyDecimals},
		{"1.2345", kwd, ErrTooManyDecimals},
		{"0.00001", clf, ErrTooManyDecimals},
		{"0.0000000001", ton, ErrTooManyDecimals},
		{"12,50", usd, ErrSyntax},
		{"", usd, ErrSyntax},
		{"1", Currency{}, ErrUnknownCurrency},
	}
	for _, tt := range tests {
		t.Run(tt.in+" "+tt.cur.Code(), func(t *testing.T) {
			_, err := ParseAmount(tt.in, tt.cur)
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestAmountConstructors(t *testing.T) {
	assert.Equal(t, "0.00", Zero(usd).String())
	assert.True(t, Zero(usd).IsZero())
	assert.Equal(t, "0", Zero(jpy).String())
	assert.Equal(t, "0.000000000", Zero(ton).String())
	assert.Equal(t, "10.50", NewAmount(1050, usd).String())
	assert.Equal(t, "-0.01", NewAmount(-1, usd).String())
	assert.Equal(t, "0.001", NewAmount(1, kwd).String())

	src := big.NewInt(1234)
	a := NewAmountBig(src, eur)
	src.SetInt64(9999)
	assert.Equal(t, "12.34", a.String(), "NewAmountBig must copy")

	m := a.Minor()
	m.SetInt64(1)
	assert.Equal(t, "12.34", a.String(), "Minor must return a copy")

	assert.Equal(t, "0.00", NewAmountBig(nil, usd).String())
}

func TestAmountZeroValue(t *testing.T) {
	var a Amount
	assert.True(t, a.IsZero())
	assert.Equal(t, 0, a.Sign())
	assert.True(t, a.Currency().IsZero())
	assert.Equal(t, "0", a.String())
	assert.Equal(t, "0", a.Minor().String())
	assert.Equal(t, 0, a.Cmp(Amount{}))
	assert.ErrorIs(t, ValidatePositive(a), ErrUnknownCurrency)
}

func TestAmountArithmetic(t *testing.T) {
	tests := []struct {
		a, b          int64
		add, sub, neg string
		cmp           int
	}{
		{1050, 250, "13.00", "8.00", "-10.50", 1},
		{250, 1050, "13.00", "-8.00", "-2.50", -1},
		{-310, 310, "0.00", "-6.20", "3.10", -1},
		{0, 0, "0.00", "0.00", "0.00", 0},
		{5, 5, "0.10", "0.00", "-0.05", 0},
	}
	for _, tt := range tests {
		a, b := NewAmount(tt.a, usd), NewAmount(tt.b, usd)
		t.Run(a.String()+" "+b.String(), func(t *testing.T) {
			assert.Equal(t, tt.add, a.Add(b).String())
			assert.Equal(t, tt.sub, a.Sub(b).String())
			assert.Equal(t, tt.neg, a.Neg().String())
			assert.Equal(t, tt.cmp, a.Cmp(b))
			assert.Equal(t, usd, a.Add(b).Currency())
			// Operands are untouched.
			assert.Equal(t, NewAmount(tt.a, usd).String(), a.String())
			assert.Equal(t, NewAmount(tt.b, usd).String(), b.String())
		})
	}
}

func TestAmountBeyondInt64(t *testing.T) {
	a, err := ParseAmount("1000000000000000", ton)
	require.NoError(t, err)
	sum := a.Add(a).Add(a)
	assert.Equal(t, "3000000000000000.000000000", sum.String())
	assert.Equal(t, "3000000000000000000000000", sum.Minor().String())
	assert.Equal(t, 1, sum.Cmp(a))
}

func TestAmountCurrencyMismatchPanics(t *testing.T) {
	a, b := NewAmount(100, usd), NewAmount(100, eur)
	for name, f := range map[string]func(){
		"Cmp":  func() { a.Cmp(b) },
		"Add":  func() { a.Add(b) },
		"Sub":  func() { a.Sub(b) },
		"Sum":  func() { Sum(usd, a, b) },
		"zero": func() { a.Add(Amount{}) },
	} {
		t.Run(name, func(t *testing.T) {
			assert.Panics(t, f)
		})
	}
	assert.PanicsWithValue(t, "money: currency mismatch: USD and EUR", func() { a.Add(b) })
}

func TestSum(t *testing.T) {
	assert.Equal(t, "0.00", Sum(usd).String())
	assert.Equal(t, usd, Sum(usd).Currency())
	assert.Equal(t, "6.00", Sum(usd, NewAmount(100, usd), NewAmount(200, usd), NewAmount(300, usd)).String())
	assert.Equal(t, "-0.50", Sum(usd, NewAmount(100, usd), NewAmount(-150, usd)).String())
	assert.Equal(t, "3", Sum(jpy, NewAmount(1, jpy), NewAmount(2, jpy)).String())
}

func TestValidatePositive(t *testing.T) {
	tests := []struct {
		in   string
		cur  Currency
		want error
	}{
		{"0.01", usd, nil},
		{"1", jpy, nil},
		{"0.000000001", ton, nil},
		{"1000000000000000", usd, nil},
		{"1000000000000000.00", usd, nil},
		{"1000000000000000", jpy, nil},
		{"1000000000000000", ton, nil},
		{"1000000000000000.01", usd, ErrTooLarge},
		{"1000000000000000.000000001", ton, ErrTooLarge},
		{"1000000000000001", jpy, ErrTooLarge},
		{"1000000000000000.001", kwd, ErrTooLarge},
		{"99999999999999999999", usd, ErrTooLarge},
		{"0", usd, ErrNotPositive},
		{"0.00", usd, ErrNotPositive},
		{"-0.01", usd, ErrNotPositive},
		{"-1000000000000001", jpy, ErrNotPositive},
	}
	for _, tt := range tests {
		t.Run(tt.in+" "+tt.cur.Code(), func(t *testing.T) {
			a, err := ParseAmount(tt.in, tt.cur)
			require.NoError(t, err)
			err = ValidatePositive(a)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
	assert.EqualError(t, ValidatePositive(mustAmount(t, "1000000000000000.000000001", ton)),
		"amount too large: must not exceed 1000000000000000 TON")
}

// mustAmount parses s in c or fails the test.
func mustAmount(t testing.TB, s string, c Currency) Amount {
	t.Helper()
	a, err := ParseAmount(s, c)
	require.NoError(t, err)
	return a
}
