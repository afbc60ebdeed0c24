package export

import (
	"cmp"
	"slices"

	"github.com/fracti/api/ledger"
	"github.com/fracti/api/store"
)

// sortedBooks is the group's books by currency code, for a stable file.
func sortedBooks(gb *store.GroupBalances) []*ledger.Book {
	books := slices.Clone(gb.Books)
	slices.SortFunc(books, func(a, b *ledger.Book) int { return cmp.Compare(a.Currency.Code(), b.Currency.Code()) })
	return books
}
