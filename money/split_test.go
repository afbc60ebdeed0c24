package money

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strs renders parts for comparison and also checks the invariant every
// split must keep: same currency, no negative part, exact sum.
func strs(t testing.TB, total Amount, parts []Amount) []string {
	t.Helper()
	out := make([]string, len(parts))
	for i, p := range parts {
		require.Equal(t, total.Currency(), p.Currency())
		require.GreaterOrEqual(t, p.Sign(), 0)
		out[i] = p.String()
	}
	require.Equal(t, 0, Sum(total.Currency(), parts...).Cmp(total), "parts must add up to the total")
	require.NoError(t, CheckExactSplit(total, parts))
	return out
}

func TestSplitEqual(t *testing.T) {
	tests := []struct {
		total string
		cur   Currency
		n     int
		want  []string
	}{
		{"10.00", usd, 3, []string{"3.34", "3.33", "3.33"}},
		{"100.00", usd, 3, []string{"33.34", "33.33", "33.33"}},
		{"0.01", usd, 3, []string{"0.01", "0.00", "0.00"}},
		{"0.02", usd, 3, []string{"0.01", "0.01", "0.00"}},
		{"0", usd, 2, []string{"0.00", "0.00"}},
		{"12.34", usd, 1, []string{"12.34"}},
		{"9", usd, 3, []string{"3.00", "3.00", "3.00"}},
		{"10", jpy, 4, []string{"3", "3", "2", "2"}},
		{"1", kwd, 7, []string{"0.143", "0.143", "0.143", "0.143", "0.143", "0.143", "0.142"}},
		{"0.0003", clf, 2, []string{"0.0002", "0.0001"}},
		{"1", ton, 3, []string{"0.333333334", "0.333333333", "0.333333333"}},
		{"1000000000000000", ton, 3, []string{
			"333333333333333.333333334", "333333333333333.333333333", "333333333333333.333333333",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.total+" "+tt.cur.Code(), func(t *testing.T) {
			total := mustAmount(t, tt.total, tt.cur)
			parts, err := SplitEqual(total, tt.n)
			require.NoError(t, err)
			assert.Equal(t, tt.want, strs(t, total, parts))
		})
	}
}

func TestSplitEqualErrors(t *testing.T) {
	tests := []struct {
		name  string
		total Amount
		n     int
		want  error
	}{
		{"zero people", NewAmount(100, usd), 0, ErrNoParticipants},
		{"negative people", NewAmount(100, usd), -1, ErrNoParticipants},
		{"negative total", NewAmount(-100, usd), 2, ErrNegative},
		{"no currency", Amount{}, 2, ErrUnknownCurrency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := SplitEqual(tt.total, tt.n)
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, parts)
		})
	}
}

func TestSplitWeighted(t *testing.T) {
	tests := []struct {
		name    string
		total   string
		cur     Currency
		weights []string
		want    []string
	}{
		{"equal weights", "100.00", usd, []string{"1", "1", "1"}, []string{"33.34", "33.33", "33.33"}},
		{"nights 2 vs 3", "10.00", usd, []string{"2", "3"}, []string{"4.00", "6.00"}},
		// 1001×2/5 = 400 r 2 and 1001×3/5 = 600 r 3: the cent goes to the larger remainder.
		{"nights 2 vs 3 odd cent", "10.01", usd, []string{"2", "3"}, []string{"4.00", "6.01"}},
		// 2×1/4 = 0 r 2, 2×2/4 = 1 r 0, 2×1/4 = 0 r 2: a tie, so the first gets the cent.
		{"tie goes to lower index", "0.02", usd, []string{"1", "2", "1"}, []string{"0.01", "0.01", "0.00"}},
		{"tie goes to lower index 2", "0.02", usd, []string{"1", "1", "2"}, []string{"0.01", "0.00", "0.01"}},
		// 7×1/10 = 0 r 7, 7×3/10 = 2 r 1, 7×6/10 = 4 r 2: largest remainder wins, not largest weight.
		{"largest remainder wins", "0.07", usd, []string{"1", "3", "6"}, []string{"0.01", "0.02", "0.04"}},
		{"mixed scales", "10.00", usd, []string{"1.5", "1"}, []string{"6.00", "4.00"}},
		{"fractions", "1.00", usd, []string{"0.5", "0.25", "0.250"}, []string{"0.50", "0.25", "0.25"}},
		{"zero weight gets nothing", "1.00", usd, []string{"0", "1", "1"}, []string{"0.00", "0.50", "0.50"}},
		{"zero weight gets no leftover", "0.01", usd, []string{"0", "1", "1"}, []string{"0.00", "0.01", "0.00"}},
		{"single", "12.34", usd, []string{"7"}, []string{"12.34"}},
		{"zero total", "0", usd, []string{"1", "2"}, []string{"0.00", "0.00"}},
		{"JPY", "10", jpy, []string{"1", "1", "1"}, []string{"4", "3", "3"}},
		// 10^9×1/3 = 333333333 r 1, 10^9×2/3 = 666666666 r 2.
		{"TON", "1", ton, []string{"1", "2"}, []string{"0.333333333", "0.666666667"}},
		{"KWD", "1", kwd, []string{"1", "1", "1"}, []string{"0.334", "0.333", "0.333"}},
		{"CLF", "0.0001", clf, []string{"1", "1"}, []string{"0.0001", "0.0000"}},
		{"negative zero weight", "1.00", usd, []string{"-0.0", "1"}, []string{"0.00", "1.00"}},
		{"tiny weights", "1.00", usd, []string{"0.000000000000000000001", "0.000000000000000000003"},
			[]string{"0.25", "0.75"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			total := mustAmount(t, tt.total, tt.cur)
			parts, err := SplitWeighted(total, decs(t, tt.weights...))
			require.NoError(t, err)
			assert.Equal(t, tt.want, strs(t, total, parts))
		})
	}
}

func TestSplitWeightedErrors(t *testing.T) {
	tests := []struct {
		name    string
		total   Amount
		weights []string
		want    error
	}{
		{"no weights", NewAmount(100, usd), nil, ErrNoParticipants},
		{"negative weight", NewAmount(100, usd), []string{"1", "-0.5"}, ErrBadWeight},
		{"all zero", NewAmount(100, usd), []string{"0", "0.00"}, ErrBadWeight},
		{"negative total", NewAmount(-1, usd), []string{"1"}, ErrNegative},
		{"no currency", Amount{}, []string{"1"}, ErrUnknownCurrency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := SplitWeighted(tt.total, decs(t, tt.weights...))
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, parts)
		})
	}
}

func TestSplitPercentages(t *testing.T) {
	tests := []struct {
		name  string
		total string
		cur   Currency
		pcts  []string
		want  []string
	}{
		// 10×3333/10000 = 3 r 3330 (twice), 10×3334/10000 = 3 r 3340.
		{"JPY thirds", "10", jpy, []string{"33.33", "33.33", "33.34"}, []string{"3", "3", "4"}},
		{"halves", "100.00", usd, []string{"50", "50"}, []string{"50.00", "50.00"}},
		{"half a cent each", "0.01", usd, []string{"50", "50"}, []string{"0.01", "0.00"}},
		{"mixed scales", "10.00", usd, []string{"33.3333", "33.3333", "33.3334"}, []string{"3.33", "3.33", "3.34"}},
		{"mixed written scales", "10.00", usd, []string{"33.3", "33.30", "33.4"}, []string{"3.33", "3.33", "3.34"}},
		{"all to one", "12.34", usd, []string{"100", "0"}, []string{"12.34", "0.00"}},
		{"single", "12.34", usd, []string{"100.00"}, []string{"12.34"}},
		{"TON", "1", ton, []string{"12.5", "87.5"}, []string{"0.125000000", "0.875000000"}},
		{"KWD", "10", kwd, []string{"25", "25", "50"}, []string{"2.500", "2.500", "5.000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			total := mustAmount(t, tt.total, tt.cur)
			parts, err := SplitPercentages(total, decs(t, tt.pcts...))
			require.NoError(t, err)
			assert.Equal(t, tt.want, strs(t, total, parts))
		})
	}
}

func TestSplitPercentagesErrors(t *testing.T) {
	tests := []struct {
		name  string
		total Amount
		pcts  []string
		want  error
		msg   string
	}{
		{"none", NewAmount(100, usd), nil, ErrNoParticipants, ""},
		{"short", NewAmount(100, usd), []string{"33.33", "33.33", "33.33"}, ErrPercentSum,
			"percentages must add up to exactly 100: they add up to 99.99"},
		{"over", NewAmount(100, usd), []string{"50", "50.01"}, ErrPercentSum,
			"percentages must add up to exactly 100: they add up to 100.01"},
		{"over 100", NewAmount(100, usd), []string{"150", "-50"}, ErrBadWeight, ""},
		{"negative", NewAmount(100, usd), []string{"110", "-10"}, ErrBadWeight, ""},
		{"negative first", NewAmount(100, usd), []string{"-10", "110"}, ErrBadWeight,
			"invalid weight: percentage 1 of 2 is -10, but each must be between 0 and 100"},
		{"all zero", NewAmount(100, usd), []string{"0", "0"}, ErrPercentSum, ""},
		{"negative total", NewAmount(-100, usd), []string{"100"}, ErrNegative, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := SplitPercentages(tt.total, decs(t, tt.pcts...))
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, parts)
			if tt.msg != "" {
				assert.EqualError(t, err, tt.msg)
			}
		})
	}
}

func TestCheckExactSplit(t *testing.T) {
	tests := []struct {
		name  string
		total Amount
		parts []Amount
		want  error
	}{
		{"exact", NewAmount(1000, usd), []Amount{NewAmount(500, usd), NewAmount(500, usd)}, nil},
		{"one pays all", NewAmount(1000, usd), []Amount{NewAmount(1000, usd), Zero(usd)}, nil},
		{"zero total", Zero(usd), []Amount{Zero(usd)}, nil},
		{"TON beyond int64", mustAmount(t, "1000000000000000", ton),
			[]Amount{mustAmount(t, "999999999999999.999999999", ton), mustAmount(t, "0.000000001", ton)}, nil},
		{"short", NewAmount(1000, usd), []Amount{NewAmount(500, usd), NewAmount(499, usd)}, ErrSplitSum},
		{"over", NewAmount(1000, usd), []Amount{NewAmount(500, usd), NewAmount(501, usd)}, ErrSplitSum},
		{"negative part", NewAmount(1000, usd), []Amount{NewAmount(1500, usd), NewAmount(-500, usd)}, ErrNegative},
		{"other currency", NewAmount(1000, usd), []Amount{NewAmount(1000, eur)}, ErrCurrencyMismatch},
		{"part without currency", NewAmount(0, usd), []Amount{{}}, ErrCurrencyMismatch},
		{"no parts", NewAmount(1000, usd), nil, ErrNoParticipants},
		{"negative total", NewAmount(-1000, usd), []Amount{NewAmount(-1000, usd)}, ErrNegative},
		{"no currency", Amount{}, []Amount{{}}, ErrUnknownCurrency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckExactSplit(tt.total, tt.parts)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
	assert.EqualError(t,
		CheckExactSplit(NewAmount(1, jpy), []Amount{NewAmount(2, jpy)}),
		"splits do not add up to the amount: they add up to 2 but the amount is 1 JPY")
}

func TestSplitsAreDeterministic(t *testing.T) {
	total := mustAmount(t, "100.07", usd)
	weights := decs(t, "1", "2.5", "0", "3.333", "1", "1")
	pcts := decs(t, "16.67", "16.67", "16.66", "16.67", "16.67", "16.66")
	for range 2 {
		a, err := SplitWeighted(total, weights)
		require.NoError(t, err)
		b, err := SplitWeighted(total, weights)
		require.NoError(t, err)
		assert.Equal(t, strs(t, total, a), strs(t, total, b))

		c, err := SplitPercentages(total, pcts)
		require.NoError(t, err)
		d, err := SplitPercentages(total, pcts)
		require.NoError(t, err)
		assert.Equal(t, strs(t, total, c), strs(t, total, d))

		e, err := SplitEqual(total, 6)
		require.NoError(t, err)
		f, err := SplitEqual(total, 6)
		require.NoError(t, err)
		assert.Equal(t, strs(t, total, e), strs(t, total, f))
	}
}

func TestSplitEqualMatchesWeighted(t *testing.T) {
	// SplitEqual takes a shortcut; it must agree with the general method.
	for _, minor := range []int64{0, 1, 2, 5, 99, 100, 101, 1001, 123457} {
		for n := 1; n <= 9; n++ {
			total := NewAmount(minor, usd)
			eq, err := SplitEqual(total, n)
			require.NoError(t, err)
			w := make([]Decimal, n)
			for i := range w {
				w[i] = NewDecimal(1, 0)
			}
			wt, err := SplitWeighted(total, w)
			require.NoError(t, err)
			assert.Equal(t, strs(t, total, wt), strs(t, total, eq), "%d over %d", minor, n)
		}
	}
}

func TestSplitPartsAreIndependent(t *testing.T) {
	// SplitEqual shares big.Ints between parts; nothing a caller can do may
	// change one part through another.
	parts, err := SplitEqual(NewAmount(1000, usd), 3)
	require.NoError(t, err)
	parts[1].Minor().SetInt64(0)
	_ = parts[0].Add(parts[1])
	assert.Equal(t, []string{"3.34", "3.33", "3.33"}, strs(t, NewAmount(1000, usd), parts))
}
