package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// A group's balances in one currency live on its GROUP#<id> /
// LEDGER#<currency> item (its book), one Number attribute per amount, so that every
// write changes them with ADD in the same transaction as the write itself
// and reading them never reads expenses:
//
//	p:<userId>           paid for others in expenses
//	o:<userId>           owed: what others paid for them
//	s:<userId>           sent in completed settlements
//	r:<userId>           received in completed settlements
//	d:<userA>:<userB>    what A owes B (A < B; negative: B owes A)
//
// and its currency code in currency.
const (
	attrPaid     = "p:"
	attrOwed     = "o:"
	attrSent     = "s:"
	attrReceived = "r:"
	attrDebt     = "d:"
	attrCurrency = "currency"
)

// GroupBalances is a group's kept balances: one book per currency it uses.
type GroupBalances struct {
	GroupID   string
	Version   int64    // the ledger's version when read
	MemberIDs []string // current members, sorted
	Books     []*ledger.Book
	// Events and HistoryHead are the head of the group's activity chain: the
	// number and hash of its newest event ("" before the first).
	Events      int64
	HistoryHead string
	// Claims maps each placeholder being claimed to the user claiming it.
	Claims map[string]string
}

// Book is the group's book in the currency, or an empty one.
func (g *GroupBalances) Book(cur money.Currency) *ledger.Book {
	for _, b := range g.Books {
		if b.Currency == cur {
			return b
		}
	}
	return ledger.NewBook(cur)
}

// Ledger is a group's LEDGER item as read: the current members, the
// currencies it holds books in, the head of its activity chain and the
// claims under way. A group's balances are its ledger and its books.
type Ledger struct {
	GroupID     string
	Version     int64
	MemberIDs   []string // sorted
	Currencies  []string
	Events      int64
	HistoryHead string
	Claims      map[string]string
	// oldBooks: some books may still be at BALANCES#<currency>, where they
	// were kept before the migration moved them beside the ledger.
	oldBooks bool
}

// ledger turns the record into a Ledger.
func (rec *ledgerRecord) ledger() (*Ledger, error) {
	l := &Ledger{GroupID: groupIDFromPK(rec.PK), Version: rec.Version, MemberIDs: rec.MemberIDs,
		Currencies: rec.Currencies, Events: rec.Events, HistoryHead: rec.Head, oldBooks: !rec.BooksBeside}
	slices.Sort(l.MemberIDs)
	for _, c := range rec.Claims {
		if ph, user, ok := strings.Cut(c, ":"); ok {
			if l.Claims == nil {
				l.Claims = map[string]string{}
			}
			l.Claims[ph] = user
		}
	}
	return l, nil
}

// GetBalances reads the balances of many groups in two rounds of
// BatchGetItem (ledgers, then their currencies' books), whatever the number
// of expenses. The result is aligned with groupIDs; a missing group is nil.
func (s *Store) GetBalances(ctx context.Context, groupIDs []string) ([]*GroupBalances, error) {
	return s.getBalances(ctx, groupIDs, false)
}

// StoredBalances reads one group's balances strongly consistent and exactly
// as stored, with no claim merged: what `verify` compares with a
// recomputation from the group's expenses and settlements. Nil when the
// group does not exist.
func (s *Store) StoredBalances(ctx context.Context, groupID string) (*GroupBalances, error) {
	gbs, err := s.readBalances(ctx, []string{groupID}, true)
	if err != nil {
		return nil, err
	}
	return gbs[0], nil
}

// getBalances reads the groups' balances as members see them (mergeClaims).
func (s *Store) getBalances(ctx context.Context, groupIDs []string, consistent bool) ([]*GroupBalances, error) {
	gbs, err := s.readBalances(ctx, groupIDs, consistent)
	for _, gb := range gbs {
		if gb != nil && err == nil {
			err = gb.mergeClaims()
		}
	}
	return gbs, err
}

// GetBooks reads the books of groups whose ledgers were read already, in
// one round of BatchGetItem, and returns their balances as members see
// them (mergeClaims), aligned with ledgers (nil for a nil ledger).
func (s *Store) GetBooks(ctx context.Context, ledgers []*Ledger) ([]*GroupBalances, error) {
	gbs, err := s.readBooks(ctx, ledgers, false)
	for _, gb := range gbs {
		if gb != nil && err == nil {
			err = gb.mergeClaims()
		}
	}
	return gbs, err
}

// mergeClaims shows each claimed placeholder's amounts as its claimer's and
// drops the placeholder from the members: during a placeholder's claim,
// nobody sees a half-moved state. It needs the books' pairs, so it decodes
// them (only a group with a claim under way has any to merge).
func (g *GroupBalances) mergeClaims() error {
	for ph, user := range g.Claims {
		for _, b := range g.Books {
			if err := b.LoadPairs(); err != nil {
				return err
			}
			b.Apply(b.MergeDelta(ph, user))
		}
		g.MemberIDs = slices.DeleteFunc(g.MemberIDs, func(id string) bool { return id == ph })
	}
	return nil
}

// readBalances reads the groups' balances exactly as stored.
func (s *Store) readBalances(ctx context.Context, groupIDs []string, consistent bool) ([]*GroupBalances, error) {
	keys := make([]map[string]types.AttributeValue, len(groupIDs))
	for i, id := range groupIDs {
		keys[i] = tableKey(groupPK(id), skLedger)
	}
	items, err := s.batchRead(ctx, dedupeKeys(keys), consistent)
	if err != nil {
		return nil, err
	}
	byGroup := make(map[string]*Ledger, len(items))
	for _, item := range items {
		l, err := decodeLedger(item)
		if err != nil {
			return nil, err
		}
		byGroup[l.GroupID] = l
	}
	ledgers := make([]*Ledger, len(groupIDs))
	for i, id := range groupIDs {
		ledgers[i] = byGroup[id]
	}
	return s.readBooks(ctx, ledgers, consistent)
}

// decodeLedger reads a LEDGER item.
func decodeLedger(item map[string]types.AttributeValue) (*Ledger, error) {
	var rec ledgerRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return nil, fmt.Errorf("decode ledger: %w", err)
	}
	return rec.ledger()
}

// readBooks reads the books of the ledgers' currencies (beside each ledger,
// and where an unmigrated group may still keep them) and assembles each
// group's balances exactly as stored.
func (s *Store) readBooks(ctx context.Context, ledgers []*Ledger, consistent bool) ([]*GroupBalances, error) {
	var keys []map[string]types.AttributeValue
	for _, l := range ledgers {
		if l != nil {
			keys = append(keys, l.bookKeys()...)
		}
	}
	items, err := s.batchRead(ctx, dedupeKeys(keys), consistent)
	if err != nil {
		return nil, err
	}
	books := make(map[string][]map[string]types.AttributeValue, len(ledgers))
	for _, item := range items {
		g := itemGroupID(item)
		books[g] = append(books[g], item)
	}
	out := make([]*GroupBalances, len(ledgers))
	for i, l := range ledgers {
		if l != nil {
			if out[i], err = l.balances(books[l.GroupID], !consistent); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// bookKeys are the keys of the ledger's books.
func (l *Ledger) bookKeys() []map[string]types.AttributeValue {
	var keys []map[string]types.AttributeValue
	for _, c := range l.Currencies {
		keys = append(keys, tableKey(groupPK(l.GroupID), bookSK(c)))
		if l.oldBooks {
			keys = append(keys, tableKey(groupPK(l.GroupID), oldBookSK(c)))
		}
	}
	return keys
}

// balances assembles the group's balances, exactly as stored, from its
// ledger and its book items. A book found in both places (a group whose
// books the migration has not moved yet, written to since) is their sum.
// With later, each book's pairs are decoded on first use (see decodeBook);
// a consistent read, made to write, decodes them at once.
func (l *Ledger) balances(bookItems []map[string]types.AttributeValue, later bool) (*GroupBalances, error) {
	gb := &GroupBalances{GroupID: l.GroupID, Version: l.Version, MemberIDs: slices.Clone(l.MemberIDs),
		Events: l.Events, HistoryHead: l.HistoryHead, Claims: l.Claims}
	for _, item := range bookItems {
		b, err := decodeBook(item, later)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(gb.Books, func(x *ledger.Book) bool { return x.Currency == b.Currency }); i >= 0 {
			if err := errors.Join(gb.Books[i].LoadPairs(), b.LoadPairs()); err != nil {
				return nil, err
			}
			gb.Books[i].Apply(bookDelta(b))
			continue
		}
		gb.Books = append(gb.Books, b)
	}
	slices.SortFunc(gb.Books, func(x, y *ledger.Book) int { return strings.Compare(x.Currency.Code(), y.Currency.Code()) })
	return gb, nil
}

// decodeBook reads a book item (LEDGER#<currency>, or BALANCES#<currency> before).
// With later, the book's pairs are decoded on first use (ledger.Book.LoadPairs):
// a screen's balances and simplified debts need only each member's totals.
func decodeBook(item map[string]types.AttributeValue, later bool) (*ledger.Book, error) {
	code, _ := item[attrCurrency].(*types.AttributeValueMemberS)
	if code == nil {
		return nil, fmt.Errorf("balances item without currency")
	}
	cur, err := money.LookupCurrency(code.Value)
	if err != nil {
		return nil, err
	}
	b := ledger.NewBook(cur)
	user := func(id string) *ledger.UserBalance {
		u := b.Users[id]
		if u == nil {
			z := money.Zero(cur)
			u = &ledger.UserBalance{Paid: z, Owed: z, Sent: z, Received: z}
			b.Users[id] = u
		}
		return u
	}
	for name, v := range item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok || len(name) < 3 || name[1] != ':' || name[:2] == attrDebt {
			continue
		}
		a, err := readAmount(attributevalue.Number(n.Value), cur.Code())
		if err != nil {
			return nil, fmt.Errorf("balance %s: %w", name, err)
		}
		key := name[2:]
		switch name[:2] {
		case attrPaid:
			user(key).Paid = a
		case attrOwed:
			user(key).Owed = a
		case attrSent:
			user(key).Sent = a
		case attrReceived:
			user(key).Received = a
		}
	}
	b.DecodePairsLater(func() (map[ledger.Pair]money.Amount, error) { return decodePairs(item, cur) })
	if !later {
		if err := b.LoadPairs(); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// decodePairs reads the pairs ("A owes B") of a book item in cur.
func decodePairs(item map[string]types.AttributeValue, cur money.Currency) (map[ledger.Pair]money.Amount, error) {
	// The pairs are most of a book's attributes: sized once, the map is
	// not rebuilt again and again as it grows.
	n := 0
	for name := range item {
		if strings.HasPrefix(name, attrDebt) {
			n++
		}
	}
	pairs := make(map[ledger.Pair]money.Amount, n)
	for name, v := range item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok || len(name) <= len(attrDebt) || !strings.HasPrefix(name, attrDebt) {
			continue
		}
		a, err := readAmount(attributevalue.Number(n.Value), cur.Code())
		if err != nil {
			return nil, fmt.Errorf("balance %s: %w", name, err)
		}
		x, y, found := strings.Cut(name[len(attrDebt):], ":")
		if !found {
			return nil, fmt.Errorf("balance %s: not a pair", name)
		}
		pairs[ledger.Pair{A: x, B: y}] = a
	}
	return pairs, nil
}
