package store_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"github.com/fracti/api/exchange"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

var eur = money.MustCurrency("EUR")

// importPlan is a file's plan with n expenses in USD and EUR among Alice,
// Bob and Carol (every fifth with two payers), a settlement every tenth
// row, and the balances the file says they come to.
func importPlan(n int) *exchange.Plan {
	names := []string{"Alice", "Bob", "Carol"}
	p := &exchange.Plan{Title: "Trip", Currency: "USD"}
	for _, name := range names {
		p.People = append(p.People, exchange.Person{Name: name})
	}
	nets := map[money.Currency]map[string]money.Amount{usd: {}, eur: {}}
	move := func(cur money.Currency, name string, a money.Amount) {
		if old, ok := nets[cur][name]; ok {
			a = old.Add(a)
		}
		nets[cur][name] = a
	}
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		cur := usd
		if i%3 == 2 {
			cur = eur
		}
		total := money.NewAmount(int64(1000+i*7), cur)
		shares, err := money.SplitEqual(total, 3)
		if err != nil {
			panic(err)
		}
		e := exchange.Expense{
			Line: i + 2, Key: "row" + strconv.Itoa(i), Description: fmt.Sprintf("Expense %d", i), Category: "food",
			SpentAt: start.Add(time.Duration(i) * 7 * time.Hour), Amount: total, SplitType: exchange.SplitEqual,
		}
		payer := names[i%3]
		if i%5 == 4 {
			half := money.NewAmount(500, cur)
			e.Payers = []exchange.Part{{Name: payer, Amount: half}, {Name: names[(i+1)%3], Amount: total.Sub(half)}}
		} else {
			e.Payers = []exchange.Part{{Name: payer, Amount: total}}
		}
		for _, pp := range e.Payers {
			move(cur, pp.Name, pp.Amount)
		}
		for j, name := range names {
			e.Splits = append(e.Splits, exchange.Part{Name: name, Amount: shares[j]})
			move(cur, name, shares[j].Neg())
		}
		p.Expenses = append(p.Expenses, e)
		if i%25 == 0 {
			p.Comments = append(p.Comments,
				exchange.Comment{Line: i + 2, Key: "c" + strconv.Itoa(i), ExpenseKey: e.Key, Author: names[(i+2)%3], Body: "Was it " + e.Description + "?", CreatedAt: e.SpentAt.Add(time.Hour)},
				exchange.Comment{Line: i + 2, Key: "d" + strconv.Itoa(i), ExpenseKey: e.Key, Author: payer, CreatedAt: e.SpentAt.Add(2 * time.Hour), Deleted: true})
		}
		if i%10 == 9 {
			a := money.NewAmount(300, cur)
			p.Settlements = append(p.Settlements, exchange.Settlement{
				Line: i + 2, Key: "pay" + strconv.Itoa(i), From: names[(i+1)%3], To: names[i%3], Amount: a,
				CreatedAt: e.SpentAt.Add(time.Minute),
			})
			move(cur, names[(i+1)%3], a)
			move(cur, names[i%3], a.Neg())
		}
	}
	for _, cur := range []money.Currency{eur, usd} {
		for _, name := range names {
			if a, ok := nets[cur][name]; ok {
				p.Balances = append(p.Balances, exchange.Balance{Name: name, Amount: a})
			}
		}
	}
	return p
}

func importInput(p *exchange.Plan, hash string) store.ImportInput {
	return store.ImportInput{Title: "Trip", Currency: usd, Importer: user("1"), FileHash: hash, Plan: p}
}

// writes counts the calls that write.
func writes(c *dynamotest.Counter) int {
	ops := c.ByOperation()
	return ops["TransactWriteItems"] + ops["PutItem"] + ops["UpdateItem"] + ops["DeleteItem"] + ops["BatchWriteItem"]
}

// requireNoDrift makes the checks of `verify`: the kept balances equal a
// recomputation from the items, the activity chain holds, the spending
// summaries equal the expenses'.
func requireNoDrift(t *testing.T, f fixture, groupID string) {
	t.Helper()
	re, err := f.RecomputeBalances(ctx, groupID)
	require.NoError(t, err)
	require.Empty(t, re.Problems)
	kept, err := f.StoredBalances(ctx, groupID)
	require.NoError(t, err)
	for _, b := range kept.Books {
		r := re.Books[b.Currency]
		if r == nil {
			r = ledger.NewBook(b.Currency)
		}
		require.Empty(t, b.Diff(r), b.Currency.Code())
	}
	require.Len(t, kept.Books, len(re.Books))
	broken, err := f.VerifyChain(ctx, groupID)
	require.NoError(t, err)
	require.Empty(t, broken)
	spending, err := f.SpendingDrift(ctx, groupID)
	require.NoError(t, err)
	require.Empty(t, spending)
}

// requireFileBalances: the group's nets are the file's.
func requireFileBalances(t *testing.T, f fixture, res store.ImportResult, p *exchange.Plan) {
	t.Helper()
	ids := map[string]string{}
	for _, m := range res.Members {
		ids[m.Name] = m.MemberID
	}
	gbs, err := f.GetBalances(ctx, []string{res.GroupID})
	require.NoError(t, err)
	for _, want := range p.Balances {
		got := gbs[0].Book(want.Amount.Currency()).Nets()[ids[want.Name]]
		require.Zero(t, want.Amount.Cmp(got), "%s in %s: %s, the file says %s", want.Name, want.Amount.Currency().Code(), got, want.Amount)
	}
}

func TestImportDryRunWritesNothing(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	p := importPlan(40)
	in := importInput(p, "dry")
	in.DryRun = true
	res, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	require.Zero(t, writes(calls))
	require.Equal(t, 40, res.Expenses)
	require.Equal(t, 4, res.Settlements)
	require.Empty(t, res.Problems, "the balances a run would give are the file's")
	require.Len(t, res.Members, 3)
	for _, m := range res.Members {
		require.Equal(t, store.ImportNewPlaceholder, m.Match, m.Name)
	}
	require.Len(t, res.Books, 2)
	_, err = f.getGroup(res.GroupID)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestImportCreatesGroupWithTheFilesBalancesOnce(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	p := importPlan(250) // several batches
	res, err := f.ImportGroup(ctx, importInput(p, "h1"))
	require.NoError(t, err)
	require.False(t, res.AlreadyImported)
	require.Empty(t, res.Problems)
	require.Greater(t, calls.ByOperation()["TransactWriteItems"], 3, "the import took several batches")

	g, err := f.getGroup(res.GroupID)
	require.NoError(t, err)
	require.Equal(t, "Trip", g.Title)
	require.Equal(t, 4, g.MemberCount, "the importer and three placeholders")
	me, err := f.getMember(g.ID, "1")
	require.NoError(t, err)
	require.True(t, me.Active())
	require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) }), 250)
	require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Settlement], error) { return f.ListSettlements(ctx, g.ID, a) }), 25)
	require.Equal(t, 20, res.Comments)
	comments := all(t, 100, func(a store.PageArgs) (store.Page[store.Comment], error) { return f.ListGroupComments(ctx, g.ID, a) })
	require.Len(t, comments, 20)
	deleted := 0
	for _, c := range comments {
		if c.DeletedAt != nil {
			deleted++
			require.Empty(t, c.Body)
		}
	}
	require.Equal(t, 10, deleted, "tombstones stay tombstones")
	requireFileBalances(t, f, res, p)
	requireNoDrift(t, f, g.ID)

	calls.Reset()
	again, err := f.ImportGroup(ctx, importInput(p, "h1"))
	require.NoError(t, err)
	require.True(t, again.AlreadyImported)
	require.Equal(t, res.GroupID, again.GroupID)
	require.Equal(t, 250, again.Expenses)
	require.Zero(t, writes(calls), "importing the same file again writes nothing")
	require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) }), 250)
}

func TestInterruptedImportShowsNothingAndResumes(t *testing.T) {
	var armed atomic.Bool
	fault := dynamotest.NewFault(func(op string, n int) error {
		if op == "TransactWriteItems" && armed.Load() && n == 3 {
			return errors.New("injected: connection reset")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	p := importPlan(250)
	armed.Store(true)
	_, err := f.ImportGroup(ctx, importInput(p, "h2"))
	require.Error(t, err)

	id := store.ImportGroupID("1", "h2")
	_, err = f.getGroup(id)
	require.ErrorIs(t, err, store.ErrNotFound, "half an import is nowhere to be seen")
	groups := all(t, 10, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListUserGroups(ctx, "1", a) })
	require.Empty(t, groups)
	shares := all(t, 10, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) })
	require.Empty(t, shares)

	res, err := f.ImportGroup(ctx, importInput(p, "h2"))
	require.NoError(t, err)
	require.False(t, res.AlreadyImported)
	require.Equal(t, id, res.GroupID)
	require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, id, a) }), 250)
	requireFileBalances(t, f, res, p)
	requireNoDrift(t, f, id)
}

// Bob matches nobody ("User 2" is no Bob), so two placeholders join.
func TestImportIntoAGroupMatchesNamesAndAddsPlaceholders(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	f.expense(g, "1", "30.00", "1", "2")
	p := importPlan(30)
	p.People[0].Name, p.People[2].Name = " user 1 ", "Zed" // Alice is User 1 by name; Carol becomes Zed
	for i := range p.Expenses {
		for _, parts := range [][]exchange.Part{p.Expenses[i].Payers, p.Expenses[i].Splits} {
			for j := range parts {
				parts[j].Name = map[string]string{"Alice": " user 1 ", "Bob": "Bob", "Carol": "Zed"}[parts[j].Name]
			}
		}
	}
	for i := range p.Settlements {
		rename := map[string]string{"Alice": " user 1 ", "Bob": "Bob", "Carol": "Zed"}
		p.Settlements[i].From, p.Settlements[i].To = rename[p.Settlements[i].From], rename[p.Settlements[i].To]
	}
	for i := range p.Comments {
		p.Comments[i].Author = map[string]string{"Alice": " user 1 ", "Bob": "Bob", "Carol": "Zed"}[p.Comments[i].Author]
	}
	p.Balances = nil
	in := importInput(p, "h3")
	in.GroupID = g.ID
	res, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	require.Equal(t, []store.ImportedMember{
		{Name: " user 1 ", MemberID: "1", Match: store.ImportExistingMember},
		{Name: "Bob", MemberID: res.Members[1].MemberID, Match: store.ImportNewPlaceholder},
		{Name: "Zed", MemberID: res.Members[2].MemberID, Match: store.ImportNewPlaceholder},
	}, res.Members)
	zed, err := f.getMember(g.ID, res.Members[2].MemberID)
	require.NoError(t, err)
	require.True(t, zed.Placeholder)
	require.Equal(t, "Zed", zed.Name)
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 4, got.MemberCount, "two members and two placeholders")
	require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) }), 31)
	requireNoDrift(t, f, g.ID)

	again, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	require.True(t, again.AlreadyImported)
}

func TestImportRefusesWithNothingWritten(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(in *store.ImportInput)
		line  int
		field string
	}{
		{"splits that do not add up", func(in *store.ImportInput) {
			in.Plan.Expenses[3].Splits[0].Amount = money.NewAmount(1, usd)
		}, 5, "amount"},
		{"a name mapped to a stranger", func(in *store.ImportInput) { in.Members = map[string]string{"Bob": "99"} }, 0, "members"},
		{"a payment to oneself", func(in *store.ImportInput) { in.Plan.Settlements[0].To = in.Plan.Settlements[0].From }, 11, "to"},
		{"a comment on no expense", func(in *store.ImportInput) { in.Plan.Comments[0].ExpenseKey = "nope" }, 2, "expense"},
		{"more shares than one import writes", func(in *store.ImportInput) {
			// The 12th expense is made to carry as many alone.
			e := &in.Plan.Expenses[11]
			for range store.MaxImportShares {
				e.Splits = append(e.Splits, e.Splits[0])
			}
		}, 13, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := &dynamotest.Counter{}
			f := newFixture(t, calls.Option())
			in := importInput(importPlan(12), "bad")
			tc.spoil(&in)
			_, err := f.ImportGroup(ctx, in)
			var problem *exchange.Problem
			require.ErrorAs(t, err, &problem)
			require.Equal(t, tc.line, problem.Line)
			require.Equal(t, tc.field, problem.Field)
			require.Zero(t, writes(calls))
		})
	}
}

// Into an existing group a batch shows when it lands, each one consistent
// in itself: after an interruption members see a prefix of the file with no
// drift, and running the import again completes it.
func TestInterruptedImportIntoAGroupResumes(t *testing.T) {
	var armed atomic.Bool
	var writes atomic.Int64
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "TransactWriteItems" && armed.Load() && writes.Add(1) == 2 {
			return errors.New("injected: connection reset")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	g := f.group("1", "2")
	p := importPlan(60)
	in := importInput(p, "h4")
	in.GroupID = g.ID

	armed.Store(true) // the first batch lands, the second fails
	_, err := f.ImportGroup(ctx, in)
	require.Error(t, err)
	armed.Store(false)
	visible := all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) })
	require.Empty(t, visible, "the first batch landed, hidden until the import completes")
	require.NotEmpty(t, importedItems(t, f, g.ID)["TX"])
	requireNoDrift(t, f, g.ID)

	res, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	require.False(t, res.AlreadyImported)
	require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) }), 60)
	requireFileBalances(t, f, res, p)
	requireNoDrift(t, f, g.ID)
}

// crash fails the nth TransactWriteItems after it is armed: before the
// call reaches DynamoDB, or (lost) after it committed, its answer lost as
// when a server dies between the two.
type crash struct {
	n, calls atomic.Int64
	lost     atomic.Bool
}

var errCrash = errors.New("injected: the server went down")

func (c *crash) option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("Crash",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if middleware.GetOperationName(ctx) != "TransactWriteItems" || c.n.Load() == 0 || c.calls.Add(1) != c.n.Load() {
						return next.HandleInitialize(ctx, in)
					}
					if !c.lost.Load() {
						return middleware.InitializeOutput{}, middleware.Metadata{}, errCrash
					}
					out, md, err := next.HandleInitialize(ctx, in)
					if err != nil {
						return out, md, err
					}
					return middleware.InitializeOutput{}, md, errCrash
				}), middleware.Before)
		})
	}
}

func (c *crash) arm(n int, lost bool) {
	c.calls.Store(0)
	c.lost.Store(lost)
	c.n.Store(int64(n))
}

// TestImportSurvivesACrashAtEveryBatch: into a new group and into an
// existing one, a crash at each batch's transaction, before it reaches
// DynamoDB or after it committed, leaves a new group unseen and an existing
// one without drift; running the import again completes it with the file's
// balances, reports the balances the group then has, and a third run
// writes nothing.
func TestImportSurvivesACrashAtEveryBatch(t *testing.T) {
	c := &crash{}
	f := newFixture(t, c.option())
	p := importPlan(50)
	for _, existing := range []bool{false, true} {
		for _, lost := range []bool{false, true} {
			for n := 1; ; n++ {
				hash := fmt.Sprintf("crash-%t-%t-%d", existing, lost, n)
				in := importInput(p, hash)
				if existing {
					in.GroupID = f.group("1", "2").ID
				}
				c.arm(n, lost)
				_, err := f.ImportGroup(ctx, in)
				c.arm(0, false)
				if err == nil {
					require.Greater(t, n, 2, "the plan takes several batches")
					break
				}
				require.ErrorIs(t, err, errCrash)
				// With its answer lost, the last batch's crash leaves the import
				// complete (found so by the next run); any other, incomplete.
				id := in.GroupID
				if existing {
					requireNoDrift(t, f, id)
				} else if id = store.ImportGroupID("1", hash); !lost || !f.hasGroup(id) {
					_, err = f.getGroup(id)
					require.ErrorIs(t, err, store.ErrNotFound, "%s: half an import is nowhere to be seen", hash)
					for _, m := range all(t, 100, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListUserGroups(ctx, "1", a) }) {
						require.NotEqual(t, id, m.GroupID, hash)
					}
					for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) }) {
						require.NotEqual(t, id, e.GroupID, hash)
					}
				}

				res, err := f.ImportGroup(ctx, in)
				require.NoError(t, err, hash)
				require.True(t, lost || !res.AlreadyImported, hash)
				require.Equal(t, 50, res.Expenses)
				require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, res.GroupID, a) }), 50, hash)
				requireFileBalances(t, f, res, p)
				requireNoDrift(t, f, res.GroupID)
				kept, err := f.StoredBalances(ctx, res.GroupID)
				require.NoError(t, err)
				require.Len(t, res.Books, len(kept.Books), hash)
				for _, b := range res.Books {
					require.Empty(t, b.Diff(kept.Book(b.Currency)), "%s: the report's %s balances are the group's", hash, b.Currency.Code())
				}

				again, err := f.ImportGroup(ctx, in)
				require.NoError(t, err)
				require.True(t, again.AlreadyImported, hash)
			}
		}
	}
}

func (f fixture) hasGroup(id string) bool {
	_, err := f.getGroup(id)
	return err == nil
}

// TestConcurrentImportsOfOneFileWriteItOnce: two instances (stores of their
// own, so no in-process turn orders them) run the same import at the same
// moment, into a new group and into an existing one: each answers done or
// CONFLICT, and the file is in the group once, with no drift.
func TestConcurrentImportsOfOneFileWriteItOnce(t *testing.T) {
	f := newFixture(t)
	other := store.New(dynamotest.Client(t), f.Table(), store.Options{CursorSecret: []byte("k")})
	p := importPlan(50)
	for _, existing := range []bool{false, true} {
		in := importInput(p, fmt.Sprintf("together-%t", existing))
		if existing {
			in.GroupID = f.group("1", "2").ID
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range []*store.Store{f.Store, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.ImportGroup(ctx, in)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				require.ErrorIs(t, err, store.ErrConflict)
			}
		}
		res, err := f.ImportGroup(ctx, in) // completes what a conflict left
		require.NoError(t, err)
		again, err := f.ImportGroup(ctx, in)
		require.NoError(t, err)
		require.True(t, again.AlreadyImported)
		require.Len(t, all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, res.GroupID, a) }), 50)
		requireFileBalances(t, f, res, p)
		requireNoDrift(t, f, res.GroupID)
	}
}
