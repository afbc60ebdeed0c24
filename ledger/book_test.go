package ledger

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

// applied returns a new book in cur with ds applied in order.
func applied(cur money.Currency, ds ...Delta) *Book {
	b := NewBook(cur)
	for _, d := range ds {
		b.Apply(d)
	}
	return b
}

// cloneBook returns a deep copy of b; Amounts are immutable, so copying
// the maps and balances is enough.
func cloneBook(b *Book) *Book {
	c := &Book{Currency: b.Currency, Users: map[string]*UserBalance{}, Pairs: map[Pair]money.Amount{}}
	for id, u := range b.Users {
		v := *u
		c.Users[id] = &v
	}
	for p, a := range b.Pairs {
		c.Pairs[p] = a
	}
	return c
}

// pairNets returns the net each user's pair debts imply: what others owe
// them minus what they owe others.
func pairNets(b *Book) map[string]*big.Int {
	nets := map[string]*big.Int{}
	add := func(id string, v *big.Int) {
		if nets[id] == nil {
			nets[id] = new(big.Int)
		}
		nets[id].Add(nets[id], v)
	}
	for p, a := range b.Pairs {
		v := a.Minor() // "A owes B" of v: B is owed v more, A v less
		add(p.B, v)
		add(p.A, new(big.Int).Neg(v))
	}
	return nets
}

// checkInvariants asserts what must hold for every book built from deltas:
// amounts in the book's currency, nets adding up to zero, pairs normalized
// and non-zero, pairs implying every user's net, and Pairwise settling all.
// Problems are collected and reported once because the fuzzers call this
// after every step, and a testify call per amount would dominate their time.
func checkInvariants(t testing.TB, b *Book) {
	t.Helper()
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	nets := b.Nets()
	total := new(big.Int)
	for id, n := range nets {
		total.Add(total, n.Minor())
		u := b.Users[id]
		for _, a := range []money.Amount{n, u.Paid, u.Owed, u.Sent, u.Received} {
			if a.Currency() != b.Currency {
				bad("user %s: amount %s in %q", id, a, a.Currency().Code())
			}
		}
	}
	if total.Sign() != 0 {
		bad("nets add up to %s minor units", total)
	}
	for p, a := range b.Pairs {
		switch {
		case p.A >= p.B:
			bad("pair %v not normalized", p)
		case a.IsZero():
			bad("zero pair %v kept", p)
		case a.Currency() != b.Currency:
			bad("pair %v in %q", p, a.Currency().Code())
		case b.Users[p.A] == nil || b.Users[p.B] == nil:
			bad("pair %v has a user without a balance", p)
		}
	}
	implied := pairNets(b)
	for id, n := range nets {
		want := implied[id]
		if want == nil {
			want = new(big.Int)
		}
		if want.Cmp(n.Minor()) != 0 {
			bad("user %s: net %s but pairs imply %s minor units", id, n, want)
		}
	}
	require.Empty(t, problems)

	transfers := Pairwise(b)
	require.Len(t, transfers, len(b.Pairs))
	checkSettles(t, b.Currency, nets, transfers, false)
}

func TestBookScenario(t *testing.T) {
	// A weekend: alice pays dinner for three, bob pays the taxi for alice
	// and himself, carol settles up with alice, then the taxi is deleted.
	dinner, err := ExpenseDelta(usd, parts(t, usd, "alice", "90.00"),
		parts(t, usd, "alice", "30.00", "bob", "30.00", "carol", "30.00"))
	require.NoError(t, err)
	taxi, err := ExpenseDelta(usd, parts(t, usd, "bob", "20.00"), parts(t, usd, "alice", "10.00", "bob", "10.00"))
	require.NoError(t, err)
	settle := SettlementDelta(usd, "carol", "alice", amt(t, "30.00", usd))

	b := NewBook(usd)
	steps := []struct {
		name  string
		d     Delta
		nets  map[string]string
		pairs []string
	}{
		{"dinner", dinner,
			map[string]string{"alice": "60.00", "bob": "-30.00", "carol": "-30.00"},
			[]string{"bob pays alice 30.00", "carol pays alice 30.00"}},
		{"taxi", taxi,
			map[string]string{"alice": "50.00", "bob": "-20.00", "carol": "-30.00"},
			[]string{"bob pays alice 20.00", "carol pays alice 30.00"}},
		{"carol settles", settle,
			map[string]string{"alice": "20.00", "bob": "-20.00", "carol": "0.00"},
			[]string{"bob pays alice 20.00"}},
		{"taxi deleted", taxi.Negate(),
			map[string]string{"alice": "30.00", "bob": "-30.00", "carol": "0.00"},
			[]string{"bob pays alice 30.00"}},
	}
	for _, s := range steps {
		before := cloneBook(b)
		b.Apply(s.d)
		require.Equal(t, s.nets, netsView(b.Nets()), s.name)
		require.Equal(t, s.pairs, transfersView(Pairwise(b)), s.name)
		checkInvariants(t, b)

		undo := cloneBook(b)
		undo.Apply(s.d.Negate())
		require.True(t, undo.Equal(before), "%s: %v", s.name, undo.Diff(before))
	}
	require.Equal(t, "60.00", b.Users["alice"].Paid.String())
	require.Equal(t, "0.00", b.Users["alice"].Owed.String())
	require.Equal(t, "30.00", b.Users["alice"].Received.String())
	require.Equal(t, "30.00", b.Users["carol"].Sent.String())
	require.Equal(t, "0.00", b.Users["bob"].Paid.String(), "negated taxi leaves a zero, not a missing, amount")
}

// netsView renders nets as user → "20.00".
func netsView(nets map[string]money.Amount) map[string]string {
	v := map[string]string{}
	for id, n := range nets {
		v[id] = n.String()
	}
	return v
}

// transfersView renders transfers as "bob pays alice 20.00", in order.
func transfersView(ts []Transfer) []string {
	v := []string{}
	for _, tr := range ts {
		v = append(v, tr.From+" pays "+tr.To+" "+tr.Amount.String())
	}
	return v
}

func TestBookApplyPanics(t *testing.T) {
	d, err := ExpenseDelta(usd, parts(t, usd, "a", "1.00"), parts(t, usd, "b", "1.00"))
	require.NoError(t, err)
	b := applied(usd, d)
	before := cloneBook(b)

	tests := []struct {
		name string
		d    Delta
	}{
		{"delta in another currency", Delta{Currency: eur}},
		{"user amount in another currency", Delta{Currency: usd, Users: map[string]UserBalance{
			"a": {Paid: money.NewAmount(1, usd)},
			"b": {Owed: money.NewAmount(1, eur)},
		}}},
		{"pair amount in another currency", Delta{Currency: usd,
			Users: map[string]UserBalance{"c": {Paid: money.NewAmount(1, usd)}},
			Pairs: map[Pair]money.Amount{{"a", "b"}: money.NewAmount(1, eur)}}},
		{"pair of a user with themselves", Delta{Currency: usd,
			Pairs: map[Pair]money.Amount{{"a", "a"}: money.NewAmount(1, usd)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Panics(t, func() { b.Apply(tt.d) })
			require.True(t, b.Equal(before), "a panicking Apply changed the book: %v", b.Diff(before))
			require.Len(t, b.Users, 2)
		})
	}
}

func TestBookApplyLenient(t *testing.T) {
	// Hand-built deltas (and books a store decoded) may leave amounts unset
	// or list a pair backwards; Apply reads both the obvious way.
	b := &Book{Currency: usd, Users: map[string]*UserBalance{"a": {Paid: money.NewAmount(100, usd)}}}
	b.Apply(Delta{
		Currency: usd,
		Users: map[string]UserBalance{
			"a": {Paid: money.NewAmount(-100, usd)},
			"b": {Owed: money.NewAmount(100, usd)},
			"c": {Paid: money.NewAmount(100, usd)},
		},
		Pairs: map[Pair]money.Amount{{"c", "b"}: money.NewAmount(-100, usd)}, // "c owes b" −1.00
	})
	require.Equal(t, map[string]string{"a": "0.00", "b": "-1.00", "c": "1.00"}, netsView(b.Nets()))
	require.Equal(t, []string{"b pays c 1.00"}, transfersView(Pairwise(b)))
	require.Contains(t, b.Pairs, Pair{"b", "c"})
	require.Equal(t, usd, b.Users["a"].Owed.Currency(), "unset amounts become zeros of the currency")
	checkInvariants(t, b)
}

func TestBookEqualAndDiff(t *testing.T) {
	d, err := ExpenseDelta(usd, parts(t, usd, "111", "12.00"), parts(t, usd, "222", "12.00"))
	require.NoError(t, err)
	kept := applied(usd, d)

	tests := []struct {
		name       string
		kept, with *Book
		want       []string
	}{
		{"same", kept, applied(usd, d), nil},
		{"empty books", NewBook(usd), &Book{Currency: usd}, nil},
		{"nil is empty", NewBook(usd), nil, nil},
		{"missing user and pair read as zero", applied(usd, d, d.Negate()), NewBook(usd), nil},
		{"unset amounts read as zero", &Book{Currency: usd, Users: map[string]*UserBalance{"1": {}}},
			&Book{Currency: usd, Users: map[string]*UserBalance{"1": func() *UserBalance { z := zeroBalance(usd); return &z }()}}, nil},
		{"user amount differs", &Book{Currency: usd, Users: map[string]*UserBalance{"111": {Paid: money.NewAmount(1000, usd)}}},
			&Book{Currency: usd, Users: map[string]*UserBalance{"111": {Paid: money.NewAmount(1200, usd)}}},
			[]string{"user 111 paid: kept 10.00, recomputed 12.00"}},
		{"missing on one side", kept, NewBook(usd), []string{
			"user 111 paid: kept 12.00, recomputed 0.00",
			"user 222 owed: kept 12.00, recomputed 0.00",
			"pair 111/222: kept 222 owes 111 12.00, recomputed settled",
		}},
		{"pair direction differs", &Book{Currency: usd, Pairs: map[Pair]money.Amount{{"111", "222"}: money.NewAmount(500, usd)}},
			&Book{Currency: usd, Pairs: map[Pair]money.Amount{{"111", "222"}: money.NewAmount(-500, usd)}},
			[]string{"pair 111/222: kept 111 owes 222 5.00, recomputed 222 owes 111 5.00"}},
		{"currency differs", NewBook(usd), NewBook(eur), []string{"currency: kept USD, recomputed EUR"}},
		{"amount in a foreign currency", &Book{Currency: usd, Users: map[string]*UserBalance{"1": {Sent: money.NewAmount(5, usd)}}},
			&Book{Currency: usd, Users: map[string]*UserBalance{"1": {Sent: money.NewAmount(5, eur)}}},
			[]string{"user 1 sent: kept 0.05, recomputed 0.05 EUR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.kept.Diff(tt.with))
			require.Equal(t, len(tt.want) == 0, tt.kept.Equal(tt.with))
			require.Equal(t, len(tt.want) == 0, tt.with.Equal(tt.kept), "Equal must be symmetric")
		})
	}
	var nilBook *Book
	require.True(t, nilBook.Equal(nil))
	require.True(t, nilBook.Equal(NewBook(usd)))
}

func TestPairwise(t *testing.T) {
	b := &Book{Currency: usd, Pairs: map[Pair]money.Amount{
		{"b", "c"}: money.NewAmount(-300, usd), // c owes b
		{"a", "c"}: money.NewAmount(200, usd),  // a owes c
		{"a", "b"}: money.NewAmount(100, usd),  // a owes b
		{"c", "d"}: money.Zero(usd),            // settled: no transfer
		{"a", "d"}: {},                         // unset: no transfer
	}}
	require.Equal(t, []string{"a pays b 1.00", "a pays c 2.00", "c pays b 3.00"}, transfersView(Pairwise(b)))
	require.Equal(t, []Transfer{}, Pairwise(NewBook(usd)))
}
