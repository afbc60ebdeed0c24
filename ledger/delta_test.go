package ledger

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

var (
	usd = money.MustCurrency("USD")
	eur = money.MustCurrency("EUR")
	jpy = money.MustCurrency("JPY")
	ton = money.MustCurrency("TON")
)

// amt parses s in c or fails the test.
func amt(t testing.TB, s string, c money.Currency) money.Amount {
	t.Helper()
	a, err := money.ParseAmount(s, c)
	require.NoError(t, err)
	return a
}

// parts builds parts from "user", "amount" pairs in c.
func parts(t testing.TB, c money.Currency, kv ...string) []Part {
	t.Helper()
	var ps []Part
	for i := 0; i < len(kv); i += 2 {
		ps = append(ps, Part{UserID: kv[i], Amount: amt(t, kv[i+1], c)})
	}
	return ps
}

// deltaView renders the non-zero entries of d as "alice paid" → "20.00" and
// "alice/bob" → "bob owes alice 10.00", so expectations read like prose.
func deltaView(d Delta) map[string]string {
	v := map[string]string{}
	for id, u := range d.Users {
		for name, a := range map[string]money.Amount{"paid": u.Paid, "owed": u.Owed, "sent": u.Sent, "received": u.Received} {
			if !a.IsZero() {
				v[id+" "+name] = a.String()
			}
		}
	}
	for p, a := range d.Pairs {
		if !a.IsZero() {
			v[p.A+"/"+p.B] = showDebt(p, a, d.Currency)
		}
	}
	return v
}

func TestPairOf(t *testing.T) {
	tests := []struct {
		x, y string
		want Pair
		xIsA bool
	}{
		{"111", "222", Pair{"111", "222"}, true},
		{"222", "111", Pair{"111", "222"}, false},
		{"bob", "alice", Pair{"alice", "bob"}, false},
		{"10", "9", Pair{"10", "9"}, true}, // string order, not numeric
	}
	for _, tt := range tests {
		t.Run(tt.x+"_"+tt.y, func(t *testing.T) {
			p, xIsA := PairOf(tt.x, tt.y)
			require.Equal(t, tt.want, p)
			require.Equal(t, tt.xIsA, xIsA)
		})
	}
}

func TestExpenseDelta(t *testing.T) {
	tests := []struct {
		name   string
		cur    money.Currency
		payers []string
		shares []string
		want   map[string]string
	}{
		{
			name:   "single payer, equal split",
			cur:    usd,
			payers: []string{"alice", "30.00"},
			shares: []string{"alice", "10.00", "bob", "10.00", "carol", "10.00"},
			want: map[string]string{
				"alice paid": "20.00", "bob owed": "10.00", "carol owed": "10.00",
				"alice/bob": "bob owes alice 10.00", "alice/carol": "carol owes alice 10.00",
			},
		},
		{
			name:   "single payer, not a beneficiary",
			cur:    usd,
			payers: []string{"carol", "9.99"},
			shares: []string{"alice", "3.33", "bob", "6.66"},
			want: map[string]string{
				"carol paid": "9.99", "alice owed": "3.33", "bob owed": "6.66",
				"alice/carol": "alice owes carol 3.33", "bob/carol": "bob owes carol 6.66",
			},
		},
		{
			name:   "payer who is also a beneficiary",
			cur:    usd,
			payers: []string{"bob", "100.00"},
			shares: []string{"bob", "25.00", "alice", "75.00"},
			want:   map[string]string{"bob paid": "75.00", "alice owed": "75.00", "alice/bob": "alice owes bob 75.00"},
		},
		{
			name:   "two payers, one of them paid exactly their share",
			cur:    usd,
			payers: []string{"alice", "40.00", "bob", "20.00"},
			shares: []string{"alice", "20.00", "bob", "20.00", "carol", "20.00"},
			want:   map[string]string{"alice paid": "20.00", "carol owed": "20.00", "alice/carol": "carol owes alice 20.00"},
		},
		{
			// Debtors carol and dave tie at 30, so carol (smaller id) goes
			// first and takes 30 of alice's 50; dave then pays alice's
			// remaining 20 and bob's 10.
			name:   "two payers, greedy matching with a tie",
			cur:    usd,
			payers: []string{"alice", "50.00", "bob", "10.00"},
			shares: []string{"dave", "30.00", "carol", "30.00"},
			want: map[string]string{
				"alice paid": "50.00", "bob paid": "10.00", "carol owed": "30.00", "dave owed": "30.00",
				"alice/carol": "carol owes alice 30.00", "alice/dave": "dave owes alice 20.00", "bob/dave": "dave owes bob 10.00",
			},
		},
		{
			name:   "zero share changes nothing for that user",
			cur:    jpy,
			payers: []string{"alice", "1500"},
			shares: []string{"alice", "0", "bob", "1500"},
			want:   map[string]string{"alice paid": "1500", "bob owed": "1500", "alice/bob": "bob owes alice 1500"},
		},
		{
			name:   "paying only for oneself changes nothing",
			cur:    usd,
			payers: []string{"alice", "5.00"},
			shares: []string{"alice", "5.00"},
			want:   map[string]string{},
		},
		{
			name:   "beyond int64",
			cur:    ton,
			payers: []string{"alice", "1000000000000000"},
			shares: []string{"bob", "999999999999999.999999999", "alice", "0.000000001"},
			want: map[string]string{
				"alice paid": "999999999999999.999999999", "bob owed": "999999999999999.999999999",
				"alice/bob": "bob owes alice 999999999999999.999999999",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ExpenseDelta(tt.cur, parts(t, tt.cur, tt.payers...), parts(t, tt.cur, tt.shares...))
			require.NoError(t, err)
			require.Equal(t, tt.cur, d.Currency)
			require.Equal(t, tt.want, deltaView(d))
			require.Equal(t, len(tt.want) == 0, d.IsZero())
			for id, u := range d.Users {
				// Unchanged amounts are zeros of the currency, not Amount{}.
				for _, a := range []money.Amount{u.Paid, u.Owed, u.Sent, u.Received} {
					require.Equal(t, tt.cur, a.Currency(), "user %s", id)
				}
			}
			checkInvariants(t, applied(tt.cur, d))
		})
	}
}

func TestExpenseDeltaErrors(t *testing.T) {
	p := func(id string, minor int64, c money.Currency) Part {
		return Part{UserID: id, Amount: money.NewAmount(minor, c)}
	}
	tests := []struct {
		name           string
		cur            money.Currency
		payers, shares []Part
		also           error
	}{
		{"no currency", money.Currency{}, []Part{p("a", 1, usd)}, []Part{p("a", 1, usd)}, nil},
		{"no payers", usd, nil, []Part{p("a", 1, usd)}, nil},
		{"no shares", usd, []Part{p("a", 1, usd)}, nil, nil},
		{"payer without id", usd, []Part{p("", 1, usd)}, []Part{p("a", 1, usd)}, nil},
		{"share without id", usd, []Part{p("a", 1, usd)}, []Part{p("", 1, usd)}, nil},
		{"payer twice", usd, []Part{p("a", 1, usd), p("a", 1, usd)}, []Part{p("b", 2, usd)}, nil},
		{"share twice", usd, []Part{p("a", 2, usd)}, []Part{p("b", 1, usd), p("b", 1, usd)}, nil},
		{"negative payer", usd, []Part{p("a", 3, usd), p("b", -1, usd)}, []Part{p("c", 2, usd)}, nil},
		{"negative share", usd, []Part{p("a", 1, usd)}, []Part{p("b", 2, usd), p("c", -1, usd)}, nil},
		{"payer in another currency", usd, []Part{p("a", 1, eur)}, []Part{p("b", 1, usd)}, money.ErrCurrencyMismatch},
		{"share in another currency", usd, []Part{p("a", 1, usd)}, []Part{p("b", 1, eur)}, money.ErrCurrencyMismatch},
		{"share without currency", usd, []Part{p("a", 1, usd)}, []Part{{UserID: "b"}}, money.ErrCurrencyMismatch},
		{"sums differ", usd, []Part{p("a", 100, usd)}, []Part{p("b", 50, usd), p("c", 49, usd)}, nil},
		{"zero total", usd, []Part{p("a", 0, usd)}, []Part{p("b", 0, usd)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ExpenseDelta(tt.cur, tt.payers, tt.shares)
			require.ErrorIs(t, err, ErrInvalidExpense)
			if tt.also != nil {
				require.ErrorIs(t, err, tt.also)
			}
			require.Equal(t, Delta{}, d)
		})
	}
	_, err := ExpenseDelta(usd, []Part{p("a", 100, usd)}, []Part{p("b", 50, usd), p("c", 49, usd)})
	require.EqualError(t, err, "invalid expense: the payers paid 1.00 but the shares add up to 0.99")
}

func TestSettlementDelta(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		amount   string
		want     map[string]string
	}{
		{
			name: "debtor is A", from: "alice", to: "bob", amount: "10.00",
			want: map[string]string{"alice sent": "10.00", "bob received": "10.00", "alice/bob": "bob owes alice 10.00"},
		},
		{
			name: "debtor is B", from: "bob", to: "alice", amount: "0.01",
			want: map[string]string{"bob sent": "0.01", "alice received": "0.01", "alice/bob": "alice owes bob 0.01"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := SettlementDelta(usd, tt.from, tt.to, amt(t, tt.amount, usd))
			require.Equal(t, tt.want, deltaView(d))
			checkInvariants(t, applied(usd, d))
		})
	}

	// A settlement of exactly the debt clears the pair.
	e, err := ExpenseDelta(usd, parts(t, usd, "alice", "30.00"), parts(t, usd, "alice", "15.00", "bob", "15.00"))
	require.NoError(t, err)
	b := applied(usd, e, SettlementDelta(usd, "bob", "alice", amt(t, "15.00", usd)))
	require.Empty(t, b.Pairs)
	require.Empty(t, Pairwise(b))
	for id, n := range b.Nets() {
		require.True(t, n.IsZero(), "user %s has net %s", id, n)
	}
}

func TestSettlementDeltaPanics(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		amount   money.Amount
	}{
		{"to self", "a", "a", money.NewAmount(1, usd)},
		{"empty from", "", "b", money.NewAmount(1, usd)},
		{"empty to", "a", "", money.NewAmount(1, usd)},
		{"zero", "a", "b", money.Zero(usd)},
		{"negative", "a", "b", money.NewAmount(-1, usd)},
		{"other currency", "a", "b", money.NewAmount(1, eur)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Panics(t, func() { SettlementDelta(usd, tt.from, tt.to, tt.amount) })
		})
	}
}

func TestNegate(t *testing.T) {
	d, err := ExpenseDelta(usd, parts(t, usd, "alice", "30.00"), parts(t, usd, "alice", "10.00", "bob", "20.00"))
	require.NoError(t, err)
	before := deltaView(d)

	n := d.Negate()
	require.Equal(t, map[string]string{
		"alice paid": "-20.00", "bob owed": "-20.00", "alice/bob": "alice owes bob 20.00",
	}, deltaView(n))
	require.Equal(t, before, deltaView(d), "Negate must not modify its receiver")
	require.Equal(t, before, deltaView(n.Negate()))
	require.False(t, n.IsZero())

	s := SettlementDelta(usd, "bob", "alice", amt(t, "5.00", usd)).Negate()
	require.Equal(t, map[string]string{
		"bob sent": "-5.00", "alice received": "-5.00", "alice/bob": "bob owes alice 5.00",
	}, deltaView(s))
}

func TestDeltaIsZero(t *testing.T) {
	tests := []struct {
		name string
		d    Delta
		want bool
	}{
		{"empty", Delta{}, true},
		{"zero entries", Delta{Currency: usd, Users: map[string]UserBalance{"a": zeroBalance(usd), "b": {}},
			Pairs: map[Pair]money.Amount{{"a", "b"}: money.Zero(usd)}}, true},
		{"one user amount", Delta{Currency: usd, Users: map[string]UserBalance{"a": {Sent: money.NewAmount(1, usd)}}}, false},
		{"one pair", Delta{Currency: usd, Pairs: map[Pair]money.Amount{{"a", "b"}: money.NewAmount(-1, usd)}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.d.IsZero())
		})
	}
}

func TestUserBalanceNet(t *testing.T) {
	n := func(m int64) money.Amount { return money.NewAmount(m, usd) }
	tests := []struct {
		name string
		u    UserBalance
		want string
	}{
		{"all four", UserBalance{Paid: n(1000), Owed: n(300), Sent: n(50), Received: n(7)}, "7.43"},
		{"negative", UserBalance{Paid: n(0), Owed: n(300), Sent: n(0), Received: n(0)}, "-3.00"},
		{"unset fields read as zero", UserBalance{Owed: n(300)}, "-3.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.u.Net()
			require.Equal(t, tt.want, got.String())
			require.Equal(t, usd, got.Currency())
		})
	}
	require.True(t, UserBalance{}.Net().IsZero())
	require.Panics(t, func() { UserBalance{Paid: n(1), Owed: money.NewAmount(1, eur)}.Net() })
}

func TestSettleGreedyBound(t *testing.T) {
	// k users never need more than k−1 moves, and each move clears someone.
	vals := []int64{7, -3, -3, 5, -6, 1, -1}
	var bs []balance
	for i, v := range vals {
		bs = append(bs, balance{id: string(rune('a' + i)), v: big.NewInt(v)})
	}
	moves := settleGreedy(bs)
	require.LessOrEqual(t, len(moves), len(vals)-1)
	require.Equal(t, int64(7), bs[0].v.Int64(), "input must not be modified")
}

func TestPlusUndoesAndAffectedNamesWhoseBalanceMoves(t *testing.T) {
	usd := money.MustCurrency("USD")
	amt := func(v int64) money.Amount { return money.NewAmount(v, usd) }
	before, err := ExpenseDelta(usd, []Part{{"a", amt(900)}}, []Part{{"a", amt(300)}, {"b", amt(300)}, {"c", amt(300)}})
	require.NoError(t, err)
	// The edit moves c's share to b; a's own amounts stay the same, but the
	// pairs a–b and a–c change.
	after, err := ExpenseDelta(usd, []Part{{"a", amt(900)}}, []Part{{"a", amt(300)}, {"b", amt(600)}})
	require.NoError(t, err)
	edit, err := before.Negate().Plus(after)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, edit.Affected())

	book, direct := NewBook(usd), NewBook(usd)
	book.Apply(before)
	book.Apply(edit)
	direct.Apply(after)
	require.True(t, book.Equal(direct), "applying the edit differs from the new expense: %v", book.Diff(direct))

	// Only the description changed: nobody is affected.
	same, err := before.Negate().Plus(before)
	require.NoError(t, err)
	require.True(t, same.IsZero())
	require.Empty(t, same.Affected())

	eur := money.MustCurrency("EUR")
	_, err = edit.Plus(SettlementDelta(eur, "a", "b", money.NewAmount(1, eur)))
	require.ErrorIs(t, err, ErrInvalidExpense, "deltas of two currencies do not add")
}
