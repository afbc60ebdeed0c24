package money

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLookupCurrency(t *testing.T) {
	tests := []struct {
		in     string
		code   string
		digits int
	}{
		{"USD", "USD", 2},
		{"usd", "USD", 2},
		{"uSd", "USD", 2},
		{"EUR", "EUR", 2},
		{"JPY", "JPY", 0},
		{"KWD", "KWD", 3},
		{"BHD", "BHD", 3},
		{"CLF", "CLF", 4},
		{"GBP", "GBP", 2},
		{"CHF", "CHF", 2},
		{"TON", "TON", 9},
		{"ton", "TON", 9},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := LookupCurrency(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.code, c.Code())
			assert.Equal(t, tt.code, c.String())
			assert.Equal(t, tt.digits, c.Digits())
			assert.False(t, c.IsZero())
			assert.Equal(t, MustCurrency(tt.code), c, "lookups must give comparable equal values")
		})
	}
}

func TestLookupCurrencyUnknown(t *testing.T) {
	for _, in := range []string{
		"", "US", "USDT", "ABC", "XXX", "xts", "XTS", "U$D", "12 ", " USD", "US\x00",
		"ÜSD", strings.Repeat("A", 1000),
	} {
		t.Run(in, func(t *testing.T) {
			c, err := LookupCurrency(in)
			require.ErrorIs(t, err, ErrUnknownCurrency)
			assert.True(t, c.IsZero())
			assert.Less(t, len(err.Error()), 100, "user input must not blow up the message")
		})
	}
}

func TestMustCurrencyPanics(t *testing.T) {
	assert.PanicsWithValue(t,
		`money: unknown currency "NOPE": use an ISO 4217 code such as USD, or TON`,
		func() { MustCurrency("NOPE") })
}

func TestCurrencyZeroValue(t *testing.T) {
	var c Currency
	assert.True(t, c.IsZero())
	assert.Equal(t, "", c.String())
	assert.Equal(t, 0, c.Digits())
}

func TestCurrencyTableFromCLDR(t *testing.T) {
	// The table comes from x/text, not from us; check it is well populated
	// and that every entry is a normalized three-letter code.
	m := currencies()
	assert.Greater(t, len(m), 200)
	for code, c := range m {
		assert.Equal(t, code, c.Code())
		assert.Len(t, code, 3)
		assert.Equal(t, strings.ToUpper(code), code)
		assert.GreaterOrEqual(t, c.Digits(), 0)
		assert.LessOrEqual(t, c.Digits(), tonDigits)
	}
}

func BenchmarkLookupCurrency(b *testing.B) {
	currencies() // build the table outside the timing
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LookupCurrency("eur"); err != nil {
			b.Fatal(err)
		}
	}
}
