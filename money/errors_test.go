package money

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSentinelsAreDistinct(t *testing.T) {
	all := []error{
		ErrSyntax, ErrUnknownCurrency, ErrTooManyDecimals, ErrNotPositive,
		ErrNegative, ErrTooLarge, ErrCurrencyMismatch, ErrSplitSum,
		ErrPercentSum, ErrBadWeight, ErrNoParticipants,
	}
	seen := map[string]bool{}
	for i, a := range all {
		assert.False(t, seen[a.Error()], "duplicate text %q", a.Error())
		seen[a.Error()] = true
		for j, b := range all {
			assert.Equal(t, i == j, errors.Is(a, b), "%v vs %v", a, b)
		}
	}
}

// TestMessagesReadWell pins the user-facing messages: each wraps its
// sentinel and reads as one sentence, without the sentinel text repeated.
func TestMessagesReadWell(t *testing.T) {
	usd, jpy := MustCurrency("USD"), MustCurrency("JPY")
	_, errCur := LookupCurrency("ABC")
	_, errSyntax := ParseDecimal("12,5")
	_, errLong := ParseDecimal(strings.Repeat("1", 65))
	_, errDecUSD := ParseAmount("1.005", usd)
	_, errDecJPY := ParseAmount("1500.0", jpy)
	_, errEqual := SplitEqual(NewAmount(1000, usd), 0)
	_, errNeg := SplitEqual(NewAmount(-500, usd), 2)
	_, errWeight := SplitWeighted(NewAmount(1000, usd), []Decimal{NewDecimal(1, 0), NewDecimal(-1, 0)})
	_, errZero := SplitWeighted(NewAmount(1000, usd), []Decimal{NewDecimal(0, 0), NewDecimal(0, 2)})
	_, errPct := SplitPercentages(NewAmount(1000, usd), []Decimal{NewDecimal(5000, 2), NewDecimal(4999, 2)})
	_, errPctRange := SplitPercentages(NewAmount(1000, usd), []Decimal{NewDecimal(120, 0), NewDecimal(-20, 0)})

	tests := []struct {
		err      error
		sentinel error
		want     string
	}{
		{errCur, ErrUnknownCurrency, `unknown currency "ABC": use an ISO 4217 code such as USD, or TON`},
		{errSyntax, ErrSyntax, `not a decimal number: "12,5" (write it like "12.50")`},
		{errLong, ErrSyntax, `not a decimal number: longer than 64 characters`},
		{errDecUSD, ErrTooManyDecimals, `too many decimal places: USD allows at most 2`},
		{errDecJPY, ErrTooManyDecimals, `too many decimal places: JPY allows none`},
		{ValidatePositive(Zero(usd)), ErrNotPositive, `amount must be greater than zero: got 0.00 USD`},
		{ValidatePositive(NewAmount(-310, usd)), ErrNotPositive, `amount must be greater than zero: got -3.10 USD`},
		{ValidatePositive(NewAmountBig(pow10(18), jpy)), ErrTooLarge, `amount too large: must not exceed 1000000000000000 JPY`},
		{errEqual, ErrNoParticipants, `no participants: a split needs at least one participant`},
		{errNeg, ErrNegative, `amount to split must not be negative: got -5.00 USD`},
		{errWeight, ErrBadWeight, `invalid weight: weight 2 of 2 is negative (-1)`},
		{errZero, ErrBadWeight, `invalid weight: all weights are zero`},
		{errPct, ErrPercentSum, `percentages must add up to exactly 100: they add up to 99.99`},
		{errPctRange, ErrBadWeight, `invalid weight: percentage 1 of 2 is 120, but each must be between 0 and 100`},
		{CheckExactSplit(NewAmount(1000, usd), []Amount{NewAmount(500, usd), NewAmount(499, usd)}),
			ErrSplitSum, `splits do not add up to the amount: they add up to 9.99 but the amount is 10.00 USD`},
		{CheckExactSplit(NewAmount(1000, usd), []Amount{NewAmount(1100, usd), NewAmount(-100, usd)}),
			ErrNegative, `split 2 of 2 must not be negative: got -1.00 USD`},
		{CheckExactSplit(NewAmount(1000, usd), []Amount{NewAmount(1000, MustCurrency("EUR"))}),
			ErrCurrencyMismatch, `currency mismatch: split 1 of 1 is in EUR but the amount is in USD`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Error(t, tt.err)
			assert.ErrorIs(t, tt.err, tt.sentinel)
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}
