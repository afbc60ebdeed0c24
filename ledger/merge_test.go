package ledger

import (
	"testing"

	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

func TestMergeDelta(t *testing.T) {
	usd := money.MustCurrency("USD")
	amt := func(s string) money.Amount {
		a, err := money.ParseAmount(s, usd)
		require.NoError(t, err)
		return a
	}
	expense := func(payer string, total string, shares ...string) Delta {
		split, err := money.SplitEqual(amt(total), len(shares))
		require.NoError(t, err)
		var parts []Part
		for i, u := range shares {
			parts = append(parts, Part{UserID: u, Amount: split[i]})
		}
		d, err := ExpenseDelta(usd, []Part{{UserID: payer, Amount: amt(total)}}, parts)
		require.NoError(t, err)
		return d
	}
	tests := []struct {
		name   string
		deltas []Delta
	}{
		{"placeholder paid", []Delta{expense("p", "30.00", "a", "p", "z")}},
		{"placeholder owes", []Delta{expense("a", "30.00", "a", "p", "z"), expense("z", "20.00", "p", "z")}},
		{"placeholder and claimer share a debt", []Delta{expense("u", "20.00", "u", "p"), expense("p", "40.00", "a", "u")}},
		{"with a settlement", []Delta{expense("a", "30.00", "a", "p", "b"), SettlementDelta(usd, "p", "a", amt("5.00"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBook(usd)
			for _, d := range tt.deltas {
				b.Apply(d)
			}
			before := b.Nets()
			b.Apply(b.MergeDelta("p", "u"))
			after := b.Nets()
			require.True(t, after["p"].IsZero(), "the placeholder ends at zero")
			for u, n := range before {
				switch u {
				case "p", "u":
				default:
					require.Equal(t, n.String(), after[u].String(), "%s keeps their net", u)
				}
			}
			want := orZero(before["u"], usd).Add(before["p"])
			require.Equal(t, want.String(), orZero(after["u"], usd).String(), "the claimer gets both nets")
			for p := range b.Pairs {
				require.NotContains(t, []string{p.A, p.B}, "p", "no debt names the placeholder")
			}
			// The pairwise debts still settle every net exactly.
			sum := map[string]money.Amount{}
			for p, a := range b.Pairs {
				sum[p.A] = orZero(sum[p.A], usd).Sub(a)
				sum[p.B] = orZero(sum[p.B], usd).Add(a)
			}
			for u, n := range after {
				require.Equal(t, n.String(), orZero(sum[u], usd).String(), "debts of %s match the net", u)
			}
		})
	}
}
