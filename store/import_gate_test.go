package store_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/exchange"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// groupSeen is everything a group's members can read of it: its lists,
// balances, spending, activity and sync log, and user 1's own lists.
type groupSeen struct {
	Expenses, Settlements, Members, Events []string
	Changes, MemberCount                   int
	Nets                                   map[string]map[string]string
	Spending                               []spendView
	UserExpenses, UserShares               []string
	UserSettlements, UserActivity          []string
}

func (f fixture) seen(groupID string) groupSeen {
	t := f.t
	t.Helper()
	var v groupSeen
	for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, groupID, a) }) {
		v.Expenses = append(v.Expenses, e.ID)
	}
	for _, s := range all(t, 100, func(a store.PageArgs) (store.Page[store.Settlement], error) {
		return f.ListSettlements(ctx, groupID, a)
	}) {
		v.Settlements = append(v.Settlements, s.ID)
	}
	for _, m := range all(t, 100, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListMembers(ctx, groupID, a) }) {
		v.Members = append(v.Members, m.UserID)
	}
	for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, groupID, a) }) {
		v.Events = append(v.Events, string(e.Type))
	}
	changes, err := f.ListChanges(ctx, groupID, "", store.MaxPageSize)
	require.NoError(t, err)
	v.Changes = len(changes.Events)
	g, err := f.getGroup(groupID)
	require.NoError(t, err)
	v.MemberCount = g.MemberCount
	gbs, err := f.GetBalances(ctx, []string{groupID})
	require.NoError(t, err)
	v.Nets = map[string]map[string]string{}
	for _, b := range gbs[0].Books {
		v.Nets[b.Currency.Code()] = map[string]string{}
		for u, n := range b.Nets() {
			if !n.IsZero() {
				v.Nets[b.Currency.Code()][u] = n.String()
			}
		}
	}
	v.Spending = f.spending(groupID, "")
	for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) }) {
		v.UserExpenses = append(v.UserExpenses, e.ID)
	}
	for _, s := range all(t, 100, func(a store.PageArgs) (store.Page[store.Share], error) { return f.ListUserShares(ctx, "1", a) }) {
		v.UserShares = append(v.UserShares, s.ExpenseID)
	}
	for _, s := range all(t, 100, func(a store.PageArgs) (store.Page[store.Settlement], error) {
		return f.ListUserSettlements(ctx, "1", a)
	}) {
		v.UserSettlements = append(v.UserSettlements, s.ID)
	}
	for _, a := range all(t, 100, func(a store.PageArgs) (store.Page[store.Activity], error) { return f.ListUserActivity(ctx, "1", a) }) {
		if a.Expense != nil {
			v.UserActivity = append(v.UserActivity, a.Expense.ID)
		} else {
			v.UserActivity = append(v.UserActivity, a.Settlement.ID)
		}
	}
	return v
}

// importedItems lists, straight from the table, the ids of a group's
// expenses, settlements and comments that carry an import's mark, by the
// prefix of their sort key.
func importedItems(t *testing.T, f fixture, groupID string) map[string][]string {
	t.Helper()
	raw := dynamotest.Client(t)
	out := map[string][]string{}
	var start map[string]types.AttributeValue
	for {
		page, err := raw.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(f.Table()),
			KeyConditionExpression:    aws.String("PK = :pk"),
			FilterExpression:          aws.String("attribute_exists(imp)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "GROUP#" + groupID}},
			ExclusiveStartKey:         start,
		})
		require.NoError(t, err)
		for _, it := range page.Items {
			sk := it["SK"].(*types.AttributeValueMemberS).Value
			kind, _, _ := strings.Cut(sk, "#")
			id, _ := it["id"].(*types.AttributeValueMemberS)
			if id != nil {
				out[kind] = append(out[kind], id.Value)
			} else {
				out[kind] = append(out[kind], sk)
			}
		}
		if start = page.LastEvaluatedKey; len(start) == 0 {
			return out
		}
	}
}

// failNthTransaction injects a failure into the nth TransactWriteItems
// after failAt(n); failAt(0) stops it.
func failNthTransaction() (failAt func(n int), fault *dynamotest.Fault) {
	var fail, calls atomic.Int64
	fault = dynamotest.NewFault(func(op string, _ int) error {
		if op == "TransactWriteItems" && fail.Load() > 0 && calls.Add(1) == fail.Load() {
			return errors.New("injected: connection reset")
		}
		return nil
	})
	return func(n int) {
		calls.Store(0)
		fail.Store(int64(n))
	}, fault
}

// TestImportIntoAGroupIsSeenWholeOrNotAtAll: an import into a group with
// an expense of its own fails at each of its transactions in turn. After
// each failure the members see exactly what they saw before (lists, items
// by id, balances, spending, activity, sync log, user lists), although
// the table holds the batches that landed; a member's write meanwhile
// counts as usual; running the import again shows all of it at once, with
// one GROUP_IMPORTED event, the file's effect on the balances, and no drift.
func TestImportIntoAGroupIsSeenWholeOrNotAtAll(t *testing.T) {
	failAt, fault := failNthTransaction()
	f := newFixture(t, fault.Option())
	p := importPlan(120)
	for n := 1; ; n++ {
		g := f.group("1", "2")
		f.expense(g, "2", "30.00", "1", "2")
		before := f.seen(g.ID)
		in := importInput(p, fmt.Sprintf("whole-%d", n))
		in.GroupID, in.Members = g.ID, map[string]string{"Alice": "1"}

		failAt(n)
		_, err := f.ImportGroup(ctx, in)
		failAt(0)
		if err == nil {
			require.Greater(t, n, 3, "the plan takes several batches")
			break
		}
		require.Equal(t, before, f.seen(g.ID), "transaction %d failed: nothing of the import is seen", n)
		hidden := importedItems(t, f, g.ID)
		if n > 1 {
			require.NotEmpty(t, hidden["TX"], "the batches before %d are in the table", n)
		}
		for _, id := range hidden["TX"] {
			_, err := f.getExpense(id)
			require.ErrorIs(t, err, store.ErrNotFound, "expense %s by id", id)
			comments, err := f.ListComments(ctx, g.ID, id, store.PageArgs{First: 10})
			require.NoError(t, err)
			require.Empty(t, comments.Items)
		}
		for _, id := range hidden["SETTLE"] {
			_, err := f.getSettlement(id)
			require.ErrorIs(t, err, store.ErrNotFound, "settlement %s by id", id)
		}
		for _, sk := range hidden["USER"] {
			_, err := f.getMember(g.ID, strings.TrimPrefix(sk, "USER#"))
			require.ErrorIs(t, err, store.ErrNotFound, "placeholder %s", sk)
		}
		requireNoDrift(t, f, g.ID)
		_, err = f.RebuildSpending(ctx, g.ID)
		require.NoError(t, err)

		f.expense(g, "1", "12.00", "1", "2") // a member's write meanwhile
		mid := f.seen(g.ID)
		res, err := f.ImportGroup(ctx, in)
		require.NoError(t, err)
		after := f.seen(g.ID)
		require.Len(t, after.Expenses, 122)
		require.Len(t, after.Settlements, len(p.Settlements))
		require.Len(t, after.Members, 4, "Bob and Carol join as placeholders")
		require.Equal(t, 4, after.MemberCount)
		require.Equal(t, append([]string{"group_imported"}, mid.Events...), after.Events, "one event for the whole import, newest first")
		require.Equal(t, mid.Changes+1, after.Changes)
		requireNoDrift(t, f, g.ID)
		requireImportEffect(t, mid, after, res, p.Balances)

		// Imported items are ordinary ones now: an edit and a deletion keep
		// the books and the summaries (the day's own item and the import's
		// part of it add up), and a rebuild finds nothing to change.
		e, err := f.getExpense(importedItems(t, f, g.ID)["TX"][0])
		require.NoError(t, err)
		next := e
		next.Description, next.SpentAt = "Moved", e.SpentAt.AddDate(0, 1, 0)
		_, err = f.UpdateExpense(ctx, e, next, g.Title, "1")
		require.NoError(t, err)
		e, err = f.getExpense(after.Expenses[len(after.Expenses)/2])
		require.NoError(t, err)
		_, err = f.DeleteExpense(ctx, e, "1")
		require.NoError(t, err)
		requireNoDrift(t, f, g.ID)
		rebuilt, err := f.RebuildSpending(ctx, g.ID)
		require.NoError(t, err)
		require.Zero(t, rebuilt)
	}
}

// requireImportEffect: from before to after, each person's net in each
// currency moved by what the file says their balance is.
func requireImportEffect(t *testing.T, before, after groupSeen, res store.ImportResult, want []exchange.Balance) {
	t.Helper()
	ids := map[string]string{}
	for _, m := range res.Members {
		ids[m.Name] = m.MemberID
	}
	net := func(v groupSeen, cur money.Currency, id string) money.Amount {
		s, ok := v.Nets[cur.Code()][id]
		if !ok {
			return money.Zero(cur)
		}
		a, err := money.ParseAmount(s, cur)
		require.NoError(t, err)
		return a
	}
	require.NotEmpty(t, want)
	for _, w := range want {
		cur := w.Amount.Currency()
		moved := net(after, cur, ids[w.Name]).Sub(net(before, cur, ids[w.Name]))
		require.Zero(t, w.Amount.Cmp(moved), "%s in %s moved %s, the file says %s", w.Name, cur.Code(), moved, w.Amount)
	}
}

// TestImportedItemsCostOneRecordReadPerInstance: another instance reading
// an imported group's expenses reads the import's record once, with its
// first page; after that, and for a group no import wrote to, a page is
// one Query. The instance that imported reads no record at all.
func TestImportedItemsCostOneRecordReadPerInstance(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	other := store.New(dynamotest.Client(t, calls.Option()), f.Table(), store.Options{CursorSecret: []byte("k")})
	g := f.group("1", "2")
	plain := f.group("1", "2")
	f.expense(plain, "1", "10.00", "1", "2")
	in := importInput(importPlan(30), "cost")
	in.GroupID = g.ID
	_, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)

	page := func(s *store.Store, groupID string) map[string]int {
		calls.Reset()
		p, err := s.ListExpenses(ctx, groupID, store.PageArgs{First: 20})
		require.NoError(t, err)
		require.NotEmpty(t, p.Items)
		return calls.ByOperation()
	}
	require.Equal(t, map[string]int{"Query": 1}, page(f.Store, g.ID), "the importer knows its import is complete")
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1}, page(other, g.ID), "the first page reads the record")
	require.Equal(t, map[string]int{"Query": 1}, page(other, g.ID), "and never again")
	require.Equal(t, map[string]int{"Query": 1}, page(other, plain.ID))
}

// TestImportFinishesBesideConcurrentWrites: while one instance imports a
// file into a group, another adds expenses to it as fast as it can. The
// last batch rewrites the books whole, and the chain's condition makes it
// read them again whenever an expense came between: nothing is lost, and
// the balances are the expenses' and the file's.
func TestImportFinishesBesideConcurrentWrites(t *testing.T) {
	f := newFixture(t)
	other := store.New(dynamotest.Client(t), f.Table(), store.Options{CursorSecret: []byte("k")})
	g := f.group("1", "2")
	in := importInput(importPlan(80), "beside")
	in.GroupID, in.Members = g.ID, map[string]string{"Alice": "1", "Bob": "2"}
	before := f.seen(g.ID)

	stop := make(chan struct{})
	added := make(chan int)
	go func() {
		n := 0
		defer func() { added <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			e := equalExpense(g, "2", "3.00", "1", "2")
			if _, err := other.CreateExpense(ctx, g.Title, e, ""); err != nil {
				t.Errorf("create expense: %v", err)
				return
			}
			n++
			time.Sleep(2 * time.Millisecond)
		}
	}()
	// A member's client retries on CONFLICT ("too busy"), and so does this
	// importer: the last batch's transaction is a large one, and a writer
	// that never pauses can win the chain's next place from it many times.
	var res store.ImportResult
	var err error
	for range 5 {
		if res, err = f.ImportGroup(ctx, in); !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	close(stop)
	n := <-added
	require.NoError(t, err)
	require.Positive(t, n)
	after := f.seen(g.ID)
	require.Len(t, after.Expenses, 80+n)
	requireNoDrift(t, f, g.ID)
	// Each concurrent expense moved 1.50 USD of user 1's balance to user 2.
	ours := before
	ours.Nets = map[string]map[string]string{"USD": {
		"1": money.NewAmount(-150*int64(n), usd).String(), "2": money.NewAmount(150*int64(n), usd).String(),
	}}
	requireImportEffect(t, ours, after, res, in.Plan.Balances)
}

// widePlan is a file of 30 people where each pays once for all of them:
// every pair of people ends up owing, more balances than one ADD's
// expression may name.
func widePlan() *exchange.Plan {
	p := &exchange.Plan{Title: "Camp", Currency: "USD"}
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("Camper %02d", i))
		p.People = append(p.People, exchange.Person{Name: names[i]})
	}
	for i, payer := range names {
		total := money.NewAmount(int64(3000+i), usd)
		shares, err := money.SplitEqual(total, len(names))
		if err != nil {
			panic(err)
		}
		e := exchange.Expense{Line: i + 2, Key: "w" + fmt.Sprint(i), Description: "Supplies", Amount: total,
			SplitType: exchange.SplitEqual, Payers: []exchange.Part{{Name: payer, Amount: total}}}
		for j, name := range names {
			e.Splits = append(e.Splits, exchange.Part{Name: name, Amount: shares[j]})
		}
		p.Expenses = append(p.Expenses, e)
	}
	return p
}

// TestImportOfAWideFileRewritesTheBooks: a file whose effect on the books
// is too wide for one ADD (435 pairs) rewrites the book whole in its last
// batch, beside a member's expense written after the import started.
func TestImportOfAWideFileRewritesTheBooks(t *testing.T) {
	failAt, fault := failNthTransaction()
	f := newFixture(t, fault.Option())
	g := f.group("1", "2")
	f.expense(g, "1", "10.00", "1", "2")
	p := widePlan()
	in := importInput(p, "wide")
	in.GroupID, in.Members = g.ID, map[string]string{"Camper 00": "1", "Camper 01": "2"}
	failAt(2)
	_, err := f.ImportGroup(ctx, in)
	failAt(0)
	require.Error(t, err)
	f.expense(g, "2", "4.00", "1", "2")
	mid := f.seen(g.ID)

	res, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	after := f.seen(g.ID)
	require.Len(t, after.Expenses, 32)
	requireNoDrift(t, f, g.ID)
	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	b := gb[0].Book(usd)
	require.NoError(t, b.LoadPairs())
	require.Greater(t, len(b.Pairs), 400, "every pair owes")
	nets := map[string]money.Amount{}
	for _, person := range p.People {
		nets[person.Name] = money.Zero(usd)
	}
	for _, e := range p.Expenses {
		for _, pp := range e.Payers {
			nets[pp.Name] = nets[pp.Name].Add(pp.Amount)
		}
		for _, sp := range e.Splits {
			nets[sp.Name] = nets[sp.Name].Sub(sp.Amount)
		}
	}
	var want []exchange.Balance
	for name, n := range nets {
		want = append(want, exchange.Balance{Name: name, Amount: n})
	}
	requireImportEffect(t, mid, after, res, want)
}

// TestImportNamesAtMostSoManyMembers: the last batch requires every member
// the file names to be one still, in one condition: 120 of them fit, 121
// are refused before anything is written.
func TestImportNamesAtMostSoManyMembers(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for i := range store.MaxImportNamedMembers + 1 {
		ids = append(ids, fmt.Sprint(1000+i))
	}
	g := f.group(ids...)
	plan := func(n int) *exchange.Plan {
		p := &exchange.Plan{Title: "Club", Currency: "USD"}
		for _, id := range ids[:n] {
			p.People = append(p.People, exchange.Person{Name: "User " + id})
		}
		for half, people := range [][]exchange.Person{p.People[:n/2], p.People[n/2:]} {
			total := money.NewAmount(int64(100*len(people)), usd)
			e := exchange.Expense{Line: half + 2, Key: fmt.Sprint(half), Description: "Dues", Amount: total, SplitType: exchange.SplitEqual,
				Payers: []exchange.Part{{Name: people[0].Name, Amount: total}}}
			for _, person := range people {
				e.Splits = append(e.Splits, exchange.Part{Name: person.Name, Amount: money.NewAmount(100, usd)})
			}
			p.Expenses = append(p.Expenses, e)
		}
		return p
	}
	in := importInput(plan(store.MaxImportNamedMembers+1), "too-many")
	in.GroupID, in.Importer = g.ID, user(ids[0])
	_, err := f.ImportGroup(ctx, in)
	var problem *exchange.Problem
	require.ErrorAs(t, err, &problem)
	require.Equal(t, "members", problem.Field)
	require.Contains(t, problem.Message, "at most 120")

	in = importInput(plan(store.MaxImportNamedMembers), "just-enough")
	in.GroupID, in.Importer = g.ID, user(ids[0])
	res, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	for _, m := range res.Members {
		require.Equal(t, store.ImportExistingMember, m.Match, m.Name)
	}
	require.Len(t, f.seen(g.ID).Expenses, 2)
	requireNoDrift(t, f, g.ID)
}

// TestImportWaitsForAMemberWhoLeftMeanwhile: Carol is member 3. She
// leaves while the import runs (she owes nothing the group can see), so
// running it again is refused (BAD_USER_INPUT naming her, or CONFLICT from
// the last batch's condition) and nothing is seen; once she joins again,
// running it again completes it.
func TestImportWaitsForAMemberWhoLeftMeanwhile(t *testing.T) {
	failAt, fault := failNthTransaction()
	f := newFixture(t, fault.Option())
	g := f.group("1", "2", "3")
	p := importPlan(60)
	in := importInput(p, "left")
	in.GroupID, in.Members = g.ID, map[string]string{"Alice": "1", "Bob": "2", "Carol": "3"}
	failAt(2)
	_, err := f.ImportGroup(ctx, in)
	failAt(0)
	require.Error(t, err)
	_, err = f.LeaveGroup(ctx, g.ID, "3", "")
	require.NoError(t, err)
	before := f.seen(g.ID)
	// The same request again says who is missing; without its members
	// (the record keeps how names were mapped) the last batch is refused.
	_, err = f.ImportGroup(ctx, in)
	var problem *exchange.Problem
	require.ErrorAs(t, err, &problem)
	require.Contains(t, problem.Message, `"Carol" is mapped to 3, who is not a member of the group`)
	bare := in
	bare.Members = nil
	_, err = f.ImportGroup(ctx, bare)
	require.ErrorIs(t, err, store.ErrConflict)
	require.Equal(t, before, f.seen(g.ID))
	_, _, err = f.JoinGroup(ctx, g.ID, user("3"))
	require.NoError(t, err)
	res, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)
	require.Len(t, f.seen(g.ID).Expenses, 60)
	requireNoDrift(t, f, g.ID)
	requireFileBalances(t, f, res, p)
}
