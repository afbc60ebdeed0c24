package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// A group's balances in one currency live on its GROUP#<id> /
// BALANCES#<currency> item, one Number attribute per amount, so that every
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

// getBalances reads the groups' balances as members see them: during a
// placeholder's claim, its amounts are shown as the claimer's
// (mergeClaims), so that nobody sees a half-moved state.
func (s *Store) getBalances(ctx context.Context, groupIDs []string, consistent bool) ([]*GroupBalances, error) {
	gbs, err := s.readBalances(ctx, groupIDs, consistent)
	for _, gb := range gbs {
		if gb != nil {
			gb.mergeClaims()
		}
	}
	return gbs, err
}

// mergeClaims shows each claimed placeholder's amounts as its claimer's and
// drops the placeholder from the members.
func (g *GroupBalances) mergeClaims() {
	for ph, user := range g.Claims {
		for _, b := range g.Books {
			b.Apply(b.MergeDelta(ph, user))
		}
		g.MemberIDs = slices.DeleteFunc(g.MemberIDs, func(id string) bool { return id == ph })
	}
}

// readBalances reads the groups' balances exactly as stored.
func (s *Store) readBalances(ctx context.Context, groupIDs []string, consistent bool) ([]*GroupBalances, error) {
	keys := make([]map[string]types.AttributeValue, len(groupIDs))
	for i, id := range groupIDs {
		keys[i] = tableKey(groupPK(id), skLedger)
	}
	ledgers, err := s.batchRead(ctx, dedupeKeys(keys), consistent)
	if err != nil {
		return nil, err
	}
	byGroup := make(map[string]*GroupBalances, len(ledgers))
	var bookKeys []map[string]types.AttributeValue
	for _, item := range ledgers {
		var rec ledgerRecord
		if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
			return nil, fmt.Errorf("decode ledger: %w", err)
		}
		id := groupIDFromPK(rec.PK)
		slices.Sort(rec.MemberIDs)
		byGroup[id] = &GroupBalances{GroupID: id, Version: rec.Version, MemberIDs: rec.MemberIDs, Events: rec.Events, HistoryHead: rec.Head}
		for _, c := range rec.Claims {
			if ph, user, ok := strings.Cut(c, ":"); ok {
				if byGroup[id].Claims == nil {
					byGroup[id].Claims = map[string]string{}
				}
				byGroup[id].Claims[ph] = user
			}
		}
		for _, c := range rec.Currencies {
			bookKeys = append(bookKeys, tableKey(rec.PK, balancesSK(c)))
		}
	}
	books, err := s.batchRead(ctx, bookKeys, consistent)
	if err != nil {
		return nil, err
	}
	for _, item := range books {
		b, err := decodeBook(item)
		if err != nil {
			return nil, err
		}
		g := byGroup[itemGroupID(item)]
		g.Books = append(g.Books, b)
	}
	out := make([]*GroupBalances, len(groupIDs))
	for i, id := range groupIDs {
		if g := byGroup[id]; g != nil {
			slices.SortFunc(g.Books, func(x, y *ledger.Book) int { return strings.Compare(x.Currency.Code(), y.Currency.Code()) })
			out[i] = g
		}
	}
	return out, nil
}

// decodeBook reads a BALANCES#<currency> item.
func decodeBook(item map[string]types.AttributeValue) (*ledger.Book, error) {
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
		if !ok || len(name) < 3 || name[1] != ':' {
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
		case attrDebt:
			x, y, found := strings.Cut(key, ":")
			if !found {
				return nil, fmt.Errorf("balance %s: not a pair", name)
			}
			b.Pairs[ledger.Pair{A: x, B: y}] = a
		}
	}
	return b, nil
}
