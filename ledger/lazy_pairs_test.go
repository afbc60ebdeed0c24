package ledger

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

// TestDecodePairsLater: a book's pairs are decoded once, on first use by any
// method that reads them, and a decoding error is LoadPairs' to report.
func TestDecodePairsLater(t *testing.T) {
	pairs := func() map[Pair]money.Amount {
		return map[Pair]money.Amount{{"a", "b"}: money.NewAmount(100, usd)}
	}
	uses := map[string]func(b *Book){
		"LoadPairs":  func(b *Book) { require.NoError(t, b.LoadPairs()) },
		"Pairwise":   func(b *Book) { require.Equal(t, []string{"a pays b 1.00"}, transfersView(Pairwise(b))) },
		"MergeDelta": func(b *Book) { require.Len(t, b.MergeDelta("a", "c").Pairs, 2) },
		"Apply": func(b *Book) {
			b.Apply(Delta{Currency: usd, Pairs: map[Pair]money.Amount{{"a", "b"}: money.NewAmount(-100, usd)}})
			require.Empty(t, b.Pairs, "the decoded pair, then settled")
		},
		"Diff": func(b *Book) {
			o := NewBook(usd)
			o.Pairs = pairs()
			require.Empty(t, b.Diff(o))
		},
	}
	for name, use := range uses {
		t.Run(name, func(t *testing.T) {
			calls := 0
			b := &Book{Currency: usd, Users: map[string]*UserBalance{}}
			b.DecodePairsLater(func() (map[Pair]money.Amount, error) { calls++; return pairs(), nil })
			require.Equal(t, 0, calls, "nothing decoded until used")
			use(b)
			require.NoError(t, b.LoadPairs())
			require.Equal(t, 1, calls, "decoded once")
		})
	}

	t.Run("concurrent first uses decode once", func(t *testing.T) {
		var calls int
		var mu sync.Mutex
		b := &Book{Currency: usd, Users: map[string]*UserBalance{}}
		b.DecodePairsLater(func() (map[Pair]money.Amount, error) { mu.Lock(); calls++; mu.Unlock(); return pairs(), nil })
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { _ = Pairwise(b) })
		}
		wg.Wait()
		require.Equal(t, 1, calls)
	})

	t.Run("an error is reported, and the book keeps no pairs", func(t *testing.T) {
		b := &Book{Currency: usd, Users: map[string]*UserBalance{}}
		bad := errors.New("not a number")
		b.DecodePairsLater(func() (map[Pair]money.Amount, error) { return nil, bad })
		require.ErrorIs(t, b.LoadPairs(), bad)
		require.ErrorIs(t, b.LoadPairs(), bad, "every time")
		require.Equal(t, []Transfer{}, Pairwise(b))
		require.Equal(t, []string{"pairs: not a number"}, b.Diff(NewBook(usd)))
	})

	t.Run("a book without a decoder", func(t *testing.T) {
		require.NoError(t, NewBook(usd).LoadPairs())
	})
}
