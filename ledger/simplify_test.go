package ledger

import (
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

// netsOf builds nets in c from "user", minor-units pairs.
func netsOf(c money.Currency, kv ...any) map[string]money.Amount {
	nets := map[string]money.Amount{}
	for i := 0; i < len(kv); i += 2 {
		nets[kv[i].(string)] = money.NewAmount(int64(kv[i+1].(int)), c)
	}
	return nets
}

// checkSettles asserts that transfers are well formed, sorted by From then
// To, and bring every net to exactly zero. Simplify must also leave users
// whose net is already zero alone (Pairwise need not: debts can run through
// a user whose own net is zero), which strict asks to check.
func checkSettles(t testing.TB, cur money.Currency, nets map[string]money.Amount, transfers []Transfer, strict bool) {
	t.Helper()
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	left := map[string]*big.Int{}
	for id, n := range nets {
		if !n.IsZero() || !strict {
			left[id] = n.Minor()
		}
	}
	for i, tr := range transfers {
		switch {
		case tr.From == tr.To:
			bad("transfer %d: %s pays themselves", i, tr.From)
		case tr.Amount.Currency() != cur:
			bad("transfer %d in %q", i, tr.Amount.Currency().Code())
		case tr.Amount.Sign() <= 0:
			bad("transfer %d: %s is not positive", i, tr.Amount)
		case left[tr.From] == nil || left[tr.To] == nil:
			bad("transfer %d between %s and %s involves an unknown user or one with a zero net", i, tr.From, tr.To)
		default:
			// Paying lowers what From owes (net rises) and what To is owed.
			left[tr.From].Add(left[tr.From], tr.Amount.Minor())
			left[tr.To].Sub(left[tr.To], tr.Amount.Minor())
		}
		if i > 0 {
			prev := transfers[i-1]
			if !(prev.From < tr.From || prev.From == tr.From && prev.To < tr.To) {
				bad("transfers %d and %d out of order or repeated", i-1, i)
			}
		}
	}
	for id, v := range left {
		if v.Sign() != 0 {
			bad("user %s is left with %s minor units", id, v)
		}
	}
	require.Empty(t, problems)
}

// bruteMinTransfers finds the fewest transfers settling vals by exhaustive
// search: the first unsettled user clears their whole balance into some
// later user of opposite sign, in every possible way. It is exponential and
// independent of the subset DP it checks.
func bruteMinTransfers(vals []int64) int {
	vals = slices.Clone(vals)
	var search func(i int) int
	search = func(i int) int {
		for i < len(vals) && vals[i] == 0 {
			i++
		}
		if i == len(vals) {
			return 0
		}
		best := len(vals)
		for j := i + 1; j < len(vals); j++ {
			if (vals[i] < 0) != (vals[j] < 0) && vals[j] != 0 {
				vals[j] += vals[i]
				best = min(best, 1+search(i+1))
				vals[j] -= vals[i]
			}
		}
		return best
	}
	return search(0)
}

// bruteMaxGroups counts the most disjoint zero-sum groups vals (non-zero,
// adding up to zero) split into, by trying every group for the first value.
func bruteMaxGroups(vals []int64) int {
	if len(vals) == 0 {
		return 0
	}
	first, rest := vals[0], vals[1:]
	best := 0
	for sub := 0; sub < 1<<len(rest); sub++ {
		s := first
		var others []int64
		for i, v := range rest {
			if sub&(1<<i) != 0 {
				s += v
			} else {
				others = append(others, v)
			}
		}
		if s == 0 {
			best = max(best, 1+bruteMaxGroups(others))
		}
	}
	return best
}

func TestSimplifyKnown(t *testing.T) {
	tests := []struct {
		name string
		nets map[string]money.Amount
		want []string
	}{
		{"nothing to settle", netsOf(usd), []string{}},
		{"all zero", netsOf(usd, "a", 0, "b", 0), []string{}},
		{"one debt", netsOf(usd, "alice", 1000, "bob", -1000), []string{"bob pays alice 10.00"}},
		{"one creditor", netsOf(usd, "alice", 3000, "bob", -1000, "carol", -2000, "dave", 0),
			[]string{"bob pays alice 10.00", "carol pays alice 20.00"}},
		{"two separate debts", netsOf(usd, "a", 600, "b", 400, "c", -600, "d", -400),
			[]string{"c pays a 6.00", "d pays b 4.00"}},
		{"one group of five", netsOf(usd, "a", 500, "b", 500, "c", -500, "d", -300, "e", -200),
			[]string{"c pays a 5.00", "d pays b 3.00", "e pays b 2.00"}},
		{
			// Greedy would start with erin → alice 9.00 and need four
			// transfers; the groups {alice, bob, carol} and {dave, erin} need three.
			"greedy is not minimal",
			netsOf(usd, "alice", 1000, "bob", -700, "carol", -300, "dave", 900, "erin", -900),
			[]string{"bob pays alice 7.00", "carol pays alice 3.00", "erin pays dave 9.00"},
		},
		{"other currency digits", netsOf(jpy, "a", -1500, "b", 1500), []string{"a pays b 1500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := usd
			for _, n := range tt.nets {
				cur = n.Currency()
			}
			got, err := Simplify(cur, tt.nets)
			require.NoError(t, err)
			require.Equal(t, tt.want, transfersView(got))
			checkSettles(t, cur, tt.nets, got, true)
		})
	}
}

func TestSimplifyBeatsGreedy(t *testing.T) {
	nets := netsOf(usd, "alice", 1000, "bob", -700, "carol", -300, "dave", 900, "erin", -900)
	var bals []balance
	for _, id := range slices.Sorted(maps.Keys(nets)) {
		bals = append(bals, balance{id: id, v: nets[id].Minor()})
	}
	require.Len(t, settleGreedy(bals), 4, "greedy alone mixes the two groups")
	got, err := Simplify(usd, nets)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, 3, bruteMinTransfers([]int64{1000, -700, -300, 900, -900}))
}

func TestSimplifyErrors(t *testing.T) {
	tests := []struct {
		name string
		cur  money.Currency
		nets map[string]money.Amount
		msg  string
		also error
	}{
		{"unbalanced", usd, netsOf(usd, "a", 100, "b", -99), "invalid nets: they add up to 0.01 USD, not zero", nil},
		{"single user", usd, netsOf(usd, "a", -5), "invalid nets: they add up to -0.05 USD, not zero", nil},
		{"other currency", usd, map[string]money.Amount{"a": money.NewAmount(1, eur), "b": money.NewAmount(-1, usd)}, "", money.ErrCurrencyMismatch},
		{"empty user id", usd, netsOf(usd, "", 1, "b", -1), "invalid nets: a non-zero net has no user id", nil},
		{"no currency", money.Currency{}, netsOf(usd, "a", 1, "b", -1), "invalid nets: no currency given", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Simplify(tt.cur, tt.nets)
			require.ErrorIs(t, err, ErrInvalidNets)
			if tt.msg != "" {
				require.EqualError(t, err, tt.msg)
			}
			if tt.also != nil {
				require.ErrorIs(t, err, tt.also)
			}
			require.Nil(t, got)
		})
	}

	// Zero nets are ignored, whatever their currency or id.
	got, err := Simplify(usd, map[string]money.Amount{"": money.Zero(usd), "x": money.Zero(eur), "y": {}})
	require.NoError(t, err)
	require.Empty(t, got)
}

// randomNets returns n nets in minor units that add up to zero, each within
// ±spread; a small spread makes many zero-sum subsets, where greedy fails.
func randomNets(r *rand.Rand, n int, spread int64) []int64 {
	vals := make([]int64, n)
	var sum int64
	for i := range n - 1 {
		vals[i] = r.Int64N(2*spread+1) - spread
		sum += vals[i]
	}
	if n > 0 {
		vals[n-1] = -sum
	}
	return vals
}

// netsFromValues names users so that string order differs from input order.
func netsFromValues(c money.Currency, vals []int64) map[string]money.Amount {
	nets := map[string]money.Amount{}
	for i, v := range vals {
		nets[fmt.Sprintf("%c%d", 'a'+(i*5)%26, i)] = money.NewAmount(v, c)
	}
	return nets
}

// nonZero returns the non-zero values of vals.
func nonZero(vals []int64) []int64 {
	var out []int64
	for _, v := range vals {
		if v != 0 {
			out = append(out, v)
		}
	}
	return out
}

func TestSimplifyRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	beatGreedy := 0
	for iter := range 3000 {
		n := 1 + r.IntN(12)
		spread := []int64{3, 10, 1000}[iter%3]
		vals := randomNets(r, n, spread)
		nets := netsFromValues(usd, vals)
		require.Len(t, nets, n, "user names must be distinct")

		got, err := Simplify(usd, nets)
		require.NoError(t, err, "%v", vals)
		checkSettles(t, usd, nets, got, true)
		nz := nonZero(vals)
		require.LessOrEqual(t, len(got), max(len(nz)-1, 0), "%v", vals)

		if len(nz) <= 10 {
			require.Equal(t, len(nz)-bruteMaxGroups(nz), len(got), "%v", vals)
		}
		if len(nz) <= 7 {
			brute := bruteMinTransfers(nz)
			require.Equal(t, brute, len(got), "%v", vals)
			require.Equal(t, len(nz)-bruteMaxGroups(nz), brute, "the two oracles disagree on %v", vals)
		}

		var bals []balance
		for _, id := range slices.Sorted(maps.Keys(nets)) {
			if !nets[id].IsZero() {
				bals = append(bals, balance{id: id, v: nets[id].Minor()})
			}
		}
		if len(settleGreedy(bals)) > len(got) {
			beatGreedy++
		}
	}
	require.Positive(t, beatGreedy, "the random cases never exercised the exact search")
}

func TestSimplifyDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	vals := randomNets(r, 14, 5)
	nets := netsFromValues(usd, vals)
	first, err := Simplify(usd, nets)
	require.NoError(t, err)
	for range 20 {
		// A fresh map has a different iteration order.
		again, err := Simplify(usd, maps.Clone(nets))
		require.NoError(t, err)
		require.Equal(t, transfersView(first), transfersView(again))
	}
}

func TestSimplifyTwentyUsers(t *testing.T) {
	// Ten matching ±x pairs hidden among each other: exactly ten transfers.
	vals := make([]int64, 0, 20)
	for i := range int64(10) {
		vals = append(vals, 100+i*37, -(100 + i*37))
	}
	r := rand.New(rand.NewPCG(1, 1))
	r.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
	nets := netsFromValues(usd, vals)
	got, err := Simplify(usd, nets)
	require.NoError(t, err)
	checkSettles(t, usd, nets, got, true)
	require.Len(t, got, 10)

	for range 3 {
		vals := nonZero(randomNets(r, 20, 50))
		nets := netsFromValues(usd, vals)
		got, err := Simplify(usd, nets)
		require.NoError(t, err)
		checkSettles(t, usd, nets, got, true)
		require.LessOrEqual(t, len(got), len(vals)-1)
	}
}

func TestSimplifyBeyondExactLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{ExactLimit + 1, 25, 200} {
		vals := randomNets(r, n, 100_000)
		nets := netsFromValues(usd, vals)
		got, err := Simplify(usd, nets)
		require.NoError(t, err)
		checkSettles(t, usd, nets, got, true)
		require.LessOrEqual(t, len(got), len(nonZero(vals))-1)
	}

}

func TestSimplifyHugeAmountsFallBackToGreedy(t *testing.T) {
	// 10^15 TON is 10^24 nanotons, far beyond int64: the exact search steps
	// aside and greedy still settles exactly.
	huge := new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
	amount := func(k int64) money.Amount {
		return money.NewAmountBig(new(big.Int).Mul(huge, big.NewInt(k)), ton)
	}
	nets := map[string]money.Amount{
		"alice": amount(10), "bob": amount(-7), "carol": amount(-3), "dave": amount(9), "erin": amount(-9),
	}
	var bals []balance
	for _, id := range slices.Sorted(maps.Keys(nets)) {
		bals = append(bals, balance{id: id, v: nets[id].Minor()})
	}
	_, ok := zeroSumGroups(bals)
	require.False(t, ok)

	got, err := Simplify(ton, nets)
	require.NoError(t, err)
	checkSettles(t, ton, nets, got, true)
	require.Len(t, got, 4, "greedy, not the exact 3")

	// Just under the limit the exact search still runs.
	quarter := int64(1) << 60
	_, ok = zeroSumGroups([]balance{
		{id: "a", v: big.NewInt(quarter)}, {id: "b", v: big.NewInt(quarter - 1)},
		{id: "c", v: big.NewInt(-quarter)}, {id: "d", v: big.NewInt(-quarter + 1)},
	})
	require.True(t, ok)
	_, ok = zeroSumGroups([]balance{
		{id: "a", v: big.NewInt(quarter)}, {id: "b", v: big.NewInt(quarter)},
		{id: "c", v: big.NewInt(-quarter)}, {id: "d", v: big.NewInt(-quarter)},
	})
	require.False(t, ok, "|nets| adding up to 2^62 must fall back")
}

func BenchmarkSimplify20(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	nets := netsFromValues(usd, nonZero(randomNets(r, 20, 20)))
	for b.Loop() {
		if _, err := Simplify(usd, nets); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBookSimplifiedIsWorkedOutOnceUntilTheBookChanges(t *testing.T) {
	b := NewBook(usd)
	b.Apply(SettlementDelta(usd, "a", "b", money.NewAmount(500, usd)))
	first, err := b.Simplified()
	require.NoError(t, err)
	again, err := b.Simplified()
	require.NoError(t, err)
	require.Same(t, &first[0], &again[0], "the second call reuses the first answer")
	checkSettles(t, usd, b.Nets(), first, true)

	b.Apply(SettlementDelta(usd, "b", "a", money.NewAmount(500, usd)))
	after, err := b.Simplified()
	require.NoError(t, err)
	require.Empty(t, after, "Apply forgets the old answer")
}

func TestSimplifyConcurrentSearchesShareBoundedScratch(t *testing.T) {
	// More concurrent twenty-user searches than exactSearches admits at
	// once: each still gets the exact answer from pooled scratch memory.
	r := rand.New(rand.NewPCG(3, 3))
	var wg sync.WaitGroup
	for range 3 * cap(exactSearches) {
		nets := netsFromValues(usd, nonZero(randomNets(r, ExactLimit, 50)))
		want, err := Simplify(usd, nets) // alone
		require.NoError(t, err)
		checkSettles(t, usd, nets, want, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := Simplify(usd, nets)
			assert.NoError(t, err)
			assert.Equal(t, transfersView(want), transfersView(got))
		}()
	}
	wg.Wait()
}
