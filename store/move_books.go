package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// Books moved from BALANCES#<currency> to LEDGER#<currency>, beside the
// ledger, so that one Query reads a group with its balances (keys.go).
// Until a group's books have moved, reads add both places up, so the move
// changes no balance a member sees.

// attrBooksBeside marks a ledger whose books are all beside it.
const attrBooksBeside = "booksBeside"

// books moves a group's books beside its ledger in one transaction: each old
// book is deleted and its sum with the new one (written since the server
// moved) put beside the ledger, and the ledger is marked, on condition that
// no write changed the balances since they were read.
func (m *migration) books(ctx context.Context, groupID string) (int, error) {
	s := m.s
	item, ok, err := s.getItem(ctx, groupPK(groupID), skLedger, true)
	if err != nil || !ok {
		return 0, err
	}
	l, err := decodeLedger(item)
	if err != nil || !l.oldBooks {
		return 0, err
	}
	gb, err := s.readBooks(ctx, []*Ledger{l}, true)
	if err != nil {
		return 0, err
	}
	mark := newLedgerEdit(groupID)
	mark.set = append(mark.set, attrBooksBeside+" = "+mark.value(&types.AttributeValueMemberBOOL{Value: true}))
	mark.conds = append(mark.conds, attrNotExists(attrBooksBeside))
	mark.atVersion(l.Version)
	items := []types.TransactWriteItem{mark.item(&s.table)}
	for _, b := range gb[0].Books {
		items = append(items,
			types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: tableKey(groupPK(groupID), oldBookSK(b.Currency.Code()))}},
			types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: bookItem(groupID, b)}})
	}
	if m.opts.DryRun {
		return len(items), nil
	}
	err = s.transactWrite(ctx, items)
	if condFailedAt(err, 0) {
		return 0, nil // moved by another run, or written to meanwhile: the next run moves it
	}
	if err != nil {
		return 0, err
	}
	return len(items), nil
}

// bookItem is the whole item of a book: every amount that is not zero.
func bookItem(groupID string, b *ledger.Book) map[string]types.AttributeValue {
	item := tableKey(groupPK(groupID), bookSK(b.Currency.Code()))
	item[attrCurrency] = str(b.Currency.Code())
	put := func(attr string, a money.Amount) {
		if !a.IsZero() {
			item[attr] = &types.AttributeValueMemberN{Value: a.String()}
		}
	}
	for id, u := range b.Users {
		put(attrPaid+id, u.Paid)
		put(attrOwed+id, u.Owed)
		put(attrSent+id, u.Sent)
		put(attrReceived+id, u.Received)
	}
	for p, a := range b.Pairs {
		put(attrDebt+p.A+":"+p.B, a)
	}
	return item
}
