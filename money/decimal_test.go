package money

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in    string
		str   string
		scale int32
		sign  int
	}{
		{"0", "0", 0, 0},
		{"-0", "0", 0, 0},
		{"-0.00", "0.00", 2, 0},
		{"0.500000000", "0.500000000", 9, 1},
		{"12.50", "12.50", 2, 1},
		{"12.5", "12.5", 1, 1},
		{"-0.05", "-0.05", 2, -1},
		{"1500", "1500", 0, 1},
		{"007.10", "7.10", 2, 1},
		{"-3.10", "-3.10", 2, -1},
		{"1000000000000000000000000", "1000000000000000000000000", 0, 1},
		{"0.000000000000000000001", "0.000000000000000000001", 21, 1},
		{strings.Repeat("9", 64), strings.Repeat("9", 64), 0, 1},
		{"-" + strings.Repeat("9", 63), "-" + strings.Repeat("9", 63), 0, -1},
		{"0." + strings.Repeat("1", 62), "0." + strings.Repeat("1", 62), 62, 1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := ParseDecimal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.str, d.String())
			assert.Equal(t, tt.scale, d.Scale())
			assert.Equal(t, tt.sign, d.Sign())
			assert.Equal(t, tt.sign == 0, d.IsZero())
		})
	}
}

func TestParseDecimalRejects(t *testing.T) {
	for _, in := range []string{
		"", "-", ".", "+5", "5.", ".5", "-.5", "1,000", "12,5", "1e3", "1E3",
		" 1", "1 ", "1_000", "0x10", "--1", "1.2.3", "1.-2", "١٢", "NaN",
		"Inf", "12.50 USD", "$12", "1.0e2", "\x00",
		strings.Repeat("1", 65),
		"-" + strings.Repeat("1", 64),
		"0." + strings.Repeat("0", 63),
	} {
		t.Run(in, func(t *testing.T) {
			d, err := ParseDecimal(in)
			require.ErrorIs(t, err, ErrSyntax)
			assert.True(t, d.IsZero())
			assert.Less(t, len(err.Error()), 120)
		})
	}
}

func TestNewDecimal(t *testing.T) {
	tests := []struct {
		coef  int64
		scale int32
		str   string
		want  int32
	}{
		{0, 0, "0", 0},
		{0, 2, "0.00", 2},
		{1250, 2, "12.50", 2},
		{-5, 2, "-0.05", 2},
		{-5, 0, "-5", 0},
		{5, 9, "0.000000005", 9},
		{15, -2, "1500", 0},
		{-9223372036854775808, 3, "-9223372036854775.808", 3},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			d := NewDecimal(tt.coef, tt.scale)
			assert.Equal(t, tt.str, d.String())
			assert.Equal(t, tt.want, d.Scale())
		})
	}
}

func TestDecimalZeroValue(t *testing.T) {
	var d Decimal
	assert.Equal(t, "0", d.String())
	assert.Equal(t, int32(0), d.Scale())
	assert.Equal(t, 0, d.Sign())
	assert.True(t, d.IsZero())
	assert.Equal(t, 0, d.Cmp(NewDecimal(0, 5)))
	assert.Equal(t, -1, d.Cmp(NewDecimal(1, 5)))
}

func TestDecimalCmp(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.50", "1.5", 0},
		{"1.5", "1.50", 0},
		{"0", "-0.000", 0},
		{"1.49", "1.5", -1},
		{"1.51", "1.5", 1},
		{"-1.5", "-1.49", -1},
		{"-1.5", "1.5", -1},
		{"2", "1.999999999999", 1},
		{"100", "100.00", 0},
		{"99.99", "100", -1},
		{"0.000000001", "0", 1},
		{"-0.000000001", "0", -1},
		{"123456789012345678901234567890", "123456789012345678901234567890.0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			a, b := mustDec(t, tt.a), mustDec(t, tt.b)
			assert.Equal(t, tt.want, a.Cmp(b))
			assert.Equal(t, -tt.want, b.Cmp(a), "Cmp must be antisymmetric")
		})
	}
}

func TestDecimalImmutable(t *testing.T) {
	a := mustDec(t, "1.5")
	b := mustDec(t, "1.50")
	_ = a.Cmp(b)
	_, err := SplitWeighted(NewAmount(100, MustCurrency("USD")), []Decimal{a, b})
	require.NoError(t, err)
	assert.Equal(t, "1.5", a.String(), "rescaling must not write into the operand")
	assert.Equal(t, "1.50", b.String())
}

// mustDec parses s or fails the test.
func mustDec(t testing.TB, s string) Decimal {
	t.Helper()
	d, err := ParseDecimal(s)
	require.NoError(t, err)
	return d
}

// decs parses each of ss or fails the test.
func decs(t testing.TB, ss ...string) []Decimal {
	t.Helper()
	out := make([]Decimal, len(ss))
	for i, s := range ss {
		out[i] = mustDec(t, s)
	}
	return out
}
