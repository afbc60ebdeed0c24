package store

import (
	"context"

	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// Recomputation is a group's balances worked out again from its items.
type Recomputation struct {
	Books    map[money.Currency]*ledger.Book
	Problems []string // items that are wrong in themselves, such as splits not adding up
	Version  int64    // the ledger version the recomputation corresponds to
}

// RecomputeBalances works a group's balances out from scratch: every expense
// and every completed settlement, read in full. It is the slow, independent
// check of what every write keeps up to date (see `go run . verify`). The
// ledger version is read before and after; if a write landed in between, it
// reads again.
func (s *Store) RecomputeBalances(ctx context.Context, groupID string) (Recomputation, error) {
	for {
		before, err := s.readBalances(ctx, []string{groupID}, true)
		if err != nil {
			return Recomputation{}, err
		}
		if before[0] == nil {
			return Recomputation{}, notFoundf("group %s", groupID)
		}
		r, err := s.recompute(ctx, groupID)
		if err != nil {
			return Recomputation{}, err
		}
		after, err := s.readBalances(ctx, []string{groupID}, true)
		if err != nil {
			return Recomputation{}, err
		}
		if after[0].Version == before[0].Version {
			r.Version = before[0].Version
			return r, nil
		}
	}
}

func (s *Store) recompute(ctx context.Context, groupID string) (Recomputation, error) {
	r := Recomputation{Books: map[money.Currency]*ledger.Book{}}
	book := func(c money.Currency) *ledger.Book {
		if r.Books[c] == nil {
			r.Books[c] = ledger.NewBook(c)
		}
		return r.Books[c]
	}
	err := eachPage(ctx, func(a PageArgs) (Page[Expense], error) { return s.ListExpenses(ctx, groupID, a) }, func(e *Expense) {
		cur := e.Amount.Currency()
		var paid, owed []money.Amount
		for _, p := range e.Payers {
			paid = append(paid, p.Amount)
		}
		for _, sp := range e.Splits {
			owed = append(owed, sp.Amount)
		}
		if money.Sum(cur, paid...).Cmp(e.Amount) != 0 {
			r.Problems = append(r.Problems, "expense "+e.ID+": payers do not add up to its amount")
		}
		if money.Sum(cur, owed...).Cmp(e.Amount) != 0 {
			r.Problems = append(r.Problems, "expense "+e.ID+": splits do not add up to its amount")
		}
		d, err := e.delta()
		if err != nil {
			r.Problems = append(r.Problems, "expense "+e.ID+": "+err.Error())
			return
		}
		book(cur).Apply(d)
	})
	if err != nil {
		return r, err
	}
	err = eachPage(ctx, func(a PageArgs) (Page[Settlement], error) { return s.ListSettlements(ctx, groupID, a) }, func(st *Settlement) {
		if st.Status == SettlementCompleted {
			for _, d := range st.deltas() {
				book(d.Currency).Apply(d)
			}
		}
	})
	return r, err
}

// eachPage calls f for every item of a list, page by page.
// EachPage calls f with every item of a list, a page (MaxPageSize items) at
// a time, holding one page at once: how a stream (an export) reads a list.
func EachPage[T any](ctx context.Context, list func(PageArgs) (Page[T], error), f func(*T)) error {
	return eachPage(ctx, list, f)
}

func eachPage[T any](ctx context.Context, list func(PageArgs) (Page[T], error), f func(*T)) error {
	args := PageArgs{First: MaxPageSize}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := list(args)
		if err != nil {
			return err
		}
		for i := range p.Items {
			f(&p.Items[i])
		}
		if !p.HasNext {
			return nil
		}
		args.After = p.Cursors[len(p.Cursors)-1].String()
	}
}
