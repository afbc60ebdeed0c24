package ledger

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

// fuzzBytes hands out fuzz input one byte at a time, zeros once it runs out,
// so every input decodes to some valid scenario.
type fuzzBytes []byte

// next returns the next byte, or 0 past the end.
func (f *fuzzBytes) next() byte {
	if len(*f) == 0 {
		return 0
	}
	b := (*f)[0]
	*f = (*f)[1:]
	return b
}

// int16 returns the next two bytes as a signed number.
func (f *fuzzBytes) int16() int64 { return int64(int16(uint16(f.next())<<8 | uint16(f.next()))) }

// fuzzCurrencies cover 0, 2 and 9 digits; fuzzScales push amounts far past int64.
var (
	fuzzCurrencies = []money.Currency{usd, jpy, ton}
	fuzzScales     = []*big.Int{big.NewInt(1), big.NewInt(1000), big.NewInt(1e12), new(big.Int).Exp(big.NewInt(10), big.NewInt(22), nil)}
	fuzzUsers      = []string{"u3", "u1", "u10", "u2", "u0", "u7"}
)

// pickUsers returns k ≤ len(fuzzUsers) distinct users, walking fuzzUsers
// from a fuzz-chosen start in steps of 1 or 5 (both coprime with 6).
func pickUsers(f *fuzzBytes, k int) []string {
	start, step := int(f.next()), 1+4*int(f.next()%2)
	out := make([]string, 0, k)
	for i := range k {
		out = append(out, fuzzUsers[(start+i*step)%len(fuzzUsers)])
	}
	return out
}

func FuzzExpenseDelta(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 3, 0, 0, 10, 0, 1, 1, 1})
	f.Add([]byte{1, 3, 2, 4, 5, 0, 200, 100, 3, 2, 9, 1, 0, 7, 2, 3, 4, 5, 1, 0, 3, 0})
	f.Add([]byte{2, 3, 0, 2, 1, 255, 255, 6, 0, 0, 0, 0, 0, 1, 2, 0, 9, 2, 7, 3, 1, 0, 3, 1})
	f.Add([]byte("a sequence of expenses, settlements and deletions"))
	f.Fuzz(func(t *testing.T, data []byte) { expenseScenario(t, data) })
}

// expenseScenario decodes data into a sequence of expenses, settlements and
// deletions, applies them to a book and checks the invariants after each.
func expenseScenario(t testing.TB, data []byte) {
	in := fuzzBytes(data)
	cur := fuzzCurrencies[int(in.next())%len(fuzzCurrencies)]
	scale := fuzzScales[int(in.next())%len(fuzzScales)]
	unit := func(b byte) money.Amount {
		return money.NewAmountBig(new(big.Int).Mul(big.NewInt(int64(b)), scale), cur)
	}

	b := NewBook(cur)
	var history []Delta
	for op := 0; len(in) > 0 && op < 24; op++ {
		var d Delta
		switch in.next() % 4 {
		case 0, 1: // an expense
			payers := pickUsers(&in, 1+int(in.next()%3))
			shareUsers := pickUsers(&in, 1+int(in.next())%len(fuzzUsers))
			var ps []Part
			total := new(big.Int)
			for _, u := range payers {
				a := unit(in.next())
				total.Add(total, a.Minor())
				ps = append(ps, Part{UserID: u, Amount: a})
			}
			ss := splitByWeights(&in, cur, total, shareUsers)
			broken := in.next()%8 == 0
			if broken { // one minor unit off must be refused
				ss[0].Amount = ss[0].Amount.Add(money.NewAmount(1, cur))
			}
			var err error
			d, err = ExpenseDelta(cur, ps, ss)
			if broken || total.Sign() == 0 {
				require.ErrorIs(t, err, ErrInvalidExpense)
				continue
			}
			require.NoError(t, err)
			checkExpenseDelta(t, d, ps, ss)
		case 2: // a settlement
			users := pickUsers(&in, 2)
			d = SettlementDelta(cur, users[0], users[1], unit(1+in.next()%254))
		case 3: // deleting an earlier write
			if len(history) == 0 {
				continue
			}
			d = history[int(in.next())%len(history)].Negate()
		}

		before := cloneBook(b)
		b.Apply(d)
		checkInvariants(t, b)
		undo := cloneBook(b)
		undo.Apply(d.Negate())
		require.Empty(t, undo.Diff(before), "apply then negate")
		history = append(history, d)
	}

	// Undoing every write, oldest first rather than newest, empties the book.
	for _, d := range history {
		b.Apply(d.Negate())
	}
	require.Empty(t, b.Diff(NewBook(cur)), "undoing everything")
	require.Empty(t, b.Pairs)
}

// splitByWeights splits total between users in proportion to fuzz weights,
// rounding down and giving the leftover units to the first user.
func splitByWeights(in *fuzzBytes, cur money.Currency, total *big.Int, users []string) []Part {
	weights := make([]int64, len(users))
	var sum int64
	for i := range weights {
		weights[i] = int64(in.next())
		sum += weights[i]
	}
	if sum == 0 {
		weights[0], sum = 1, 1
	}
	out := make([]Part, len(users))
	left := new(big.Int).Set(total)
	for i, u := range users {
		v := new(big.Int).Mul(total, big.NewInt(weights[i]))
		v.Quo(v, big.NewInt(sum))
		left.Sub(left, v)
		out[i] = Part{UserID: u, Amount: money.NewAmountBig(v, cur)}
	}
	out[0].Amount = out[0].Amount.Add(money.NewAmountBig(left, cur))
	return out
}

// checkExpenseDelta asserts that d records paid − share for every user and
// at most #debtors + #creditors − 1 pair debts that imply the same nets.
func checkExpenseDelta(t testing.TB, d Delta, payers, shares []Part) {
	t.Helper()
	want := map[string]*big.Int{}
	for _, p := range payers {
		want[p.UserID] = p.Amount.Minor()
	}
	for _, s := range shares {
		if want[s.UserID] == nil {
			want[s.UserID] = new(big.Int)
		}
		want[s.UserID].Sub(want[s.UserID], s.Amount.Minor())
	}
	moved := 0
	for id, v := range want {
		u, ok := d.Users[id]
		if v.Sign() == 0 {
			require.True(t, !ok || u.IsZero(), "user %s with nothing to settle got %+v", id, u)
			continue
		}
		moved++
		require.Zero(t, u.Net().Minor().Cmp(v), "user %s: net %s, want %s", id, u.Net(), v)
		require.True(t, u.Paid.Sign() == 0 || u.Owed.Sign() == 0, "user %s both paid and owes", id)
		require.GreaterOrEqual(t, u.Paid.Sign(), 0)
		require.GreaterOrEqual(t, u.Owed.Sign(), 0)
		require.True(t, u.Sent.IsZero() && u.Received.IsZero())
	}
	require.LessOrEqual(t, len(d.Pairs), max(moved-1, 0))
	require.Equal(t, moved == 0, d.IsZero())
	b := NewBook(d.Currency)
	b.Apply(d)
	checkInvariants(t, b)
}

// fuzzMaxExact is the most non-zero nets FuzzSimplify sends to the exact search.
const fuzzMaxExact = 14

func FuzzSimplify(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, 10, 0xff, 0xf9, 0xff, 0xfd, 0, 9})
	f.Add([]byte{8, 0, 0, 3, 0, 5, 0xff, 0xfb, 0, 2, 0xff, 0xfe, 0, 3, 0, 1, 0xff, 0xff})
	f.Add([]byte{17, 1, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25})
	f.Add([]byte{5, 3, 1, 0, 10, 0, 7, 0, 3, 0, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzBytes(data)
		// Up to 14 users, or past ExactLimit for the greedy path. Sizes in
		// between are left to TestSimplifyTwentyUsers: their 2^n search,
		// slower still under coverage instrumentation, makes the fuzzer's
		// input minimization stall for its full minute and starve the run.
		n := int(in.next() % 20)
		if n > fuzzMaxExact {
			n += ExactLimit - fuzzMaxExact // 21 to 25 users
		}
		scale := fuzzScales[int(in.next())%len(fuzzScales)]
		cur := fuzzCurrencies[int(in.next())%len(fuzzCurrencies)]
		spread := int64(1) << (in.next() % 16) // small spreads give many zero-sum subsets

		vals := make([]*big.Int, n)
		sum := new(big.Int)
		for i := range vals {
			if i == n-1 {
				vals[i] = new(big.Int).Neg(sum)
				break
			}
			vals[i] = new(big.Int).Mul(big.NewInt(in.int16()%spread), scale)
			sum.Add(sum, vals[i])
		}
		nets := map[string]money.Amount{}
		var nz []int64
		abs := new(big.Int)
		for i, v := range vals {
			nets[fmt.Sprintf("%c%d", 'a'+(i*7)%26, i)] = money.NewAmountBig(v, cur)
			if v.Sign() != 0 {
				nz = append(nz, v.Int64())
				abs.Add(abs, new(big.Int).Abs(v))
			}
		}
		if len(nz) > fuzzMaxExact && len(nz) <= ExactLimit {
			return // zeros brought a large group back into the slow range
		}
		exact := abs.Cmp(big.NewInt(maxExactTotal)) < 0

		got, err := Simplify(cur, nets)
		require.NoError(t, err)
		checkSettles(t, cur, nets, got, true)
		require.LessOrEqual(t, len(got), max(len(nz)-1, 0))
		// Below 2^62 the exact search runs, so the count is the true minimum.
		if exact && len(nz) <= 8 {
			require.Equal(t, bruteMinTransfers(nz), len(got), "nets %v", nz)
		}

		again, err := Simplify(cur, nets)
		require.NoError(t, err)
		require.Equal(t, transfersView(got), transfersView(again))

		if n > 0 { // knocking one net off by a unit must be refused
			nets["a0"] = nets["a0"].Add(money.NewAmount(1, cur))
			_, err := Simplify(cur, nets)
			require.ErrorIs(t, err, ErrInvalidNets)
		}
	})
}
