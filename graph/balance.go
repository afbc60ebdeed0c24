package graph

import (
	"context"
	"fmt"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// balancesOf loads a visible group's kept balances.
func balancesOf(ctx context.Context, groupID string) (*store.GroupBalances, error) {
	gb, err := loaders.Balances(ctx, groupID)
	if err == nil && gb == nil {
		err = &internalError{fmt.Errorf("ledger of group %s is missing", groupID)}
	}
	return gb, err
}

// balance is one user's balance in a book (all zero if the book has none).
func balance(groupID, userID string, b *ledger.Book) model.Balance {
	z := money.Zero(b.Currency)
	out := model.Balance{GroupID: groupID, UserID: userID, Currency: b.Currency, Paid: z, Owed: z, Sent: z, Received: z, Net: z}
	if u := b.Users[userID]; u != nil {
		out.Paid, out.Owed, out.Sent, out.Received, out.Net = u.Paid, u.Owed, u.Sent, u.Received, u.Net()
	}
	return out
}
