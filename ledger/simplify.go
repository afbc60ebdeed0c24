package ledger

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/fracti/api/money"
)

// ExactLimit is the most users with a non-zero net for which Simplify
// guarantees the fewest transfers; its O(n·2^n) search takes a few tens of
// milliseconds and 9 MiB at this size, and doubles in both per extra user.
const ExactLimit = 20

// ErrInvalidNets reports nets that Simplify cannot settle, such as nets that
// do not add up to zero.
var ErrInvalidNets = errors.New("invalid nets")

// Transfer is one payment that settles debt: From pays To Amount.
type Transfer struct {
	From, To string
	Amount   money.Amount
}

// maxExactTotal bounds the sum of |net| (minor units) the exact search
// accepts, so every subset sum fits an int64 with room to spare.
const maxExactTotal = 1 << 62

// Simplify suggests transfers that bring every net in nets to exactly zero;
// nets must be in cur and add up to zero. With at most ExactLimit non-zero
// nets the number of transfers is the fewest possible; beyond that, or when
// the nets' absolute values add up to 2^62 minor units or more (absurd
// amounts that would overflow the int64 search), it is a greedy answer of at
// most one transfer fewer than the number of non-zero nets. The result is
// sorted by From, then To, and the same nets always give the same transfers.
func Simplify(cur money.Currency, nets map[string]money.Amount) ([]Transfer, error) {
	if cur.IsZero() {
		return nil, fmt.Errorf("%w: no currency given", ErrInvalidNets)
	}
	var bals []balance
	total := new(big.Int)
	// Sorted ids make the search, and so the answer, independent of map order.
	for _, id := range slices.Sorted(maps.Keys(nets)) {
		a := nets[id]
		switch {
		case a.IsZero():
			continue
		case a.Currency() != cur:
			return nil, fmt.Errorf("%w: the net of user %s is in %q, not %s: %w",
				ErrInvalidNets, id, a.Currency().Code(), cur, money.ErrCurrencyMismatch)
		case id == "":
			return nil, fmt.Errorf("%w: a non-zero net has no user id", ErrInvalidNets)
		}
		v := a.Minor()
		total.Add(total, v)
		bals = append(bals, balance{id: id, v: v})
	}
	if total.Sign() != 0 {
		return nil, fmt.Errorf("%w: they add up to %s %s, not zero",
			ErrInvalidNets, money.NewAmountBig(total, cur), cur)
	}

	var moves []move
	if groups, ok := zeroSumGroups(bals); ok {
		// A zero-sum group of k users can always be settled in k−1 transfers
		// and greedy never needs more, so settling each of the most groups
		// separately gives the minimum overall.
		for _, g := range groups {
			moves = append(moves, settleGreedy(g)...)
		}
	} else {
		moves = settleGreedy(bals)
	}
	out := make([]Transfer, 0, len(moves))
	for _, m := range moves {
		out = append(out, Transfer{From: m.from, To: m.to, Amount: money.NewAmountBig(m.amount, cur)})
	}
	sortTransfers(out)
	return out, nil
}

// zeroSumGroups partitions bals (non-zero, adding up to zero) into the most
// disjoint zero-sum groups, which is what minimizes transfers: n users in g
// groups need exactly n−g. It reports false when bals are too many or too
// large for the exact search.
//
// dp[mask] is the most zero-sum groups that the users in mask can be cut
// into if mask is seen as a prefix of some ordering of users: the best over
// its last user i of dp[mask without i], plus one when mask itself sums to
// zero (it then closes a group). Everything is int64 or uint8 in two flat
// slices, so the 2^20 masks at ExactLimit cost no allocation each.
func zeroSumGroups(bals []balance) ([][]balance, bool) {
	n := len(bals)
	if n > ExactLimit {
		return nil, false
	}
	vals := make([]int64, n)
	abs := new(big.Int)
	for i, b := range bals {
		abs.Add(abs, new(big.Int).Abs(b.v))
		if abs.Cmp(big.NewInt(maxExactTotal)) >= 0 {
			return nil, false
		}
		vals[i] = b.v.Int64() // fits: |v| ≤ abs < 2^62
	}
	if n == 0 {
		return nil, true
	}

	size := uint(1) << n
	// The search's 9 MiB at ExactLimit come from a pool, and at most
	// GOMAXPROCS searches run at once, so however many requests ask for
	// debts, the searches hold a bounded amount of memory.
	exactSearches <- struct{}{}
	defer func() { <-exactSearches }()
	buf := scratchPool.Get().(*scratch)
	defer scratchPool.Put(buf)
	sums, dp := buf.sized(size) // dp: at most n/2 ≤ 10 groups
	for mask := uint(1); mask < size; mask++ {
		sums[mask] = sums[mask&(mask-1)] + vals[bits.TrailingZeros(mask)]
		var best uint8
		for m := mask; m != 0; m &= m - 1 {
			if g := dp[mask&^(m&-m)]; g > best {
				best = g
			}
		}
		if sums[mask] == 0 {
			best++
		}
		dp[mask] = best
	}

	// Walk back from the full set, each time dropping a user whose removal
	// is consistent with the optimum (the lowest index, for determinism);
	// every zero-sum set on that path ends a group.
	var groups [][]balance
	var group []balance
	for mask := size - 1; mask != 0; {
		closes := uint8(0)
		if sums[mask] == 0 {
			closes = 1
		}
		for m := mask; m != 0; m &= m - 1 {
			bit := m & -m
			if dp[mask&^bit]+closes == dp[mask] {
				group = append(group, bals[bits.TrailingZeros(bit)])
				mask &^= bit
				break
			}
		}
		if sums[mask] == 0 {
			groups = append(groups, group)
			group = nil
		}
	}
	return groups, true
}

// exactSearches bounds how many exact searches run at once.
var exactSearches = make(chan struct{}, runtime.GOMAXPROCS(0))

// scratch is an exact search's working memory, reused through scratchPool.
type scratch struct {
	sums []int64
	dp   []uint8
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// sized returns sums and dp of length size, with the empty set's entries zero.
func (s *scratch) sized(size uint) ([]int64, []uint8) {
	if uint(cap(s.sums)) < size {
		s.sums, s.dp = make([]int64, size), make([]uint8, size)
	}
	s.sums, s.dp = s.sums[:size], s.dp[:size]
	s.sums[0], s.dp[0] = 0, 0
	return s.sums, s.dp
}

// Pairwise returns the book's pair debts as transfers: for every non-zero
// pair the debtor pays the creditor, sorted by From, then To.
func Pairwise(b *Book) []Transfer {
	_ = b.LoadPairs() // a reader of the book checked it first
	out := []Transfer{}
	for p, a := range b.Pairs {
		a = orZero(a, b.Currency)
		switch a.Sign() {
		case 1:
			out = append(out, Transfer{From: p.A, To: p.B, Amount: a})
		case -1:
			out = append(out, Transfer{From: p.B, To: p.A, Amount: a.Neg()})
		}
	}
	sortTransfers(out)
	return out
}

// sortTransfers orders ts by From, then To; no two transfers share both.
func sortTransfers(ts []Transfer) {
	slices.SortFunc(ts, func(x, y Transfer) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To))
	})
}
