package graph_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/screens"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The cost of the screens clients show most, counted (never timed): the
// DynamoDB calls each makes and the sequential waves they come in. A change
// that adds a round trip fails here. Waves are the fewest over a few runs:
// a busy machine can only delay a call into a later wave.

// latency is what each DynamoDB call takes at least in these tests: more
// than a busy machine takes to start the goroutines of calls sent together,
// so that the waves counted are the request's, not the scheduler's.
const latency = 10 * time.Millisecond

// cost runs query as u three times and returns the calls by operation of
// the run that made the fewest, and the fewest waves.
func cost(t *testing.T, api *apitest.API, u *apitest.User, out any, query string, vars ...any) (map[string]int, int) {
	t.Helper()
	u.Must(nil, query, vars...) // the access token's lookup is cached from here on
	// The best of three runs: on a loaded machine a load may miss its
	// batch's window now and then and cost a call more, never fewer.
	var calls map[string]int
	waves := 0
	for i := range 3 {
		api.Calls.Reset()
		u.Must(out, query, vars...)
		if got := api.Calls.ByOperation(); i == 0 || total(got) < total(calls) {
			calls = got
		}
		if w := api.Calls.Waves(); i == 0 || w < waves {
			waves = w
		}
	}
	return calls, waves
}

// total is the number of calls.
func total(calls map[string]int) int {
	n := 0
	for _, c := range calls {
		n += c
	}
	return n
}

// bigGroup is a group of 50 members (the viewer first) with 30 expenses,
// each paid by one member for four, and a settlement.
func bigGroup(t testing.TB, api *apitest.API, viewer *apitest.User) string {
	ctx := context.Background()
	group := viewer.CreateGroup("Big trip")
	ids := []string{viewer.ID}
	for i := range 49 {
		id := fmt.Sprint(500 + i)
		_, _, err := api.Store.JoinGroup(ctx, group, store.NewMember{UserID: id, Name: "Member " + id})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	usd := money.MustCurrency("USD")
	for i := range 30 {
		users := []string{ids[i%50], ids[(i+7)%50], ids[(i+13)%50], ids[(i+29)%50]}
		a := money.NewAmount(int64(1000+i*37), usd)
		parts, err := money.SplitEqual(a, len(users))
		require.NoError(t, err)
		var splits []store.Split
		for j, u := range users {
			splits = append(splits, store.Split{UserID: u, UserName: "Member " + u, Amount: parts[j]})
		}
		_, err = api.Store.CreateExpense(ctx, "Big trip", store.Expense{GroupID: group, PayerID: users[0], PayerName: "Member " + users[0],
			Amount: a, Description: fmt.Sprint("expense ", i), SplitType: store.SplitEqual, CreatedBy: users[0], Splits: splits}, "")
		require.NoError(t, err)
	}
	viewer.Settle(group, ids[7], "1.00")
	return group
}

// The group screen is three Queries sent at once: the group's head (its
// METADATA, ledger and books), its expenses' page and its roster (which
// answers the membership check and names every member shown).
func TestGroupScreenIsThreeQueriesInOneWave(t *testing.T) {
	api := apitest.NewWithLatency(t, latency)
	alice := api.User("111", "Alice")
	group := bigGroup(t, api, alice)
	var out struct {
		Group struct {
			MemberCount int
			Members     struct{ Nodes []struct{ Name string } }
			Expenses    struct {
				Nodes []struct {
					Payer  struct{ Name string }
					Splits []struct{ Member struct{ Name string } }
				}
			}
			Balances []struct {
				Net    string
				Member struct{ Name string }
			}
			Debts []struct{ From, To struct{ Name string } }
		}
	}
	calls, waves := cost(t, api, alice, &out, screens.Group, "g", group)
	require.Equal(t, map[string]int{"Query": 3}, calls)
	require.Equal(t, 1, waves)

	g := out.Group
	require.Equal(t, 50, g.MemberCount)
	require.Len(t, g.Members.Nodes, 50)
	require.Len(t, g.Expenses.Nodes, 20)
	for _, e := range g.Expenses.Nodes {
		require.NotEmpty(t, e.Payer.Name)
		require.Len(t, e.Splits, 4)
		for _, s := range e.Splits {
			require.NotEmpty(t, s.Member.Name)
		}
	}
	require.Len(t, g.Balances, 50)
	require.NotEmpty(t, g.Debts)
	for _, d := range g.Debts {
		require.NotEmpty(t, d.From.Name)
		require.NotEmpty(t, d.To.Name)
	}
}

// A viewer who is not a member gets null, though the reads started ahead
// have run: nothing of them is shown.
func TestGroupScreenShowsNothingToAStranger(t *testing.T) {
	api := apitest.New(t)
	alice, mallory := api.User("111", "Alice"), api.User("999", "Mallory")
	group := alice.CreateGroup("Trip")
	alice.Expense(group, "10.00", "111")
	res := mallory.Do(screens.Group, "g", group)
	require.Empty(t, res.Errors)
	require.JSONEq(t, `{"group": null}`, string(res.Data))
}

// userInGroups makes u a member of n groups, each with two other members
// and two expenses paid by another member and shared with u.
func userInGroups(t *testing.T, api *apitest.API, u *apitest.User, n int) {
	ctx := context.Background()
	usd := money.MustCurrency("USD")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			title := fmt.Sprint("Group ", i)
			g, _, err := api.Store.CreateGroup(ctx, store.NewGroup{Title: title, Currency: usd, Creator: store.NewMember{UserID: u.ID, Name: u.Name}})
			if err != nil {
				errs <- err
				return
			}
			for _, other := range []string{"701", "702"} {
				if _, _, err := api.Store.JoinGroup(ctx, g.ID, store.NewMember{UserID: other, Name: "Friend " + other}); err != nil {
					errs <- err
					return
				}
			}
			for j, payer := range []string{"701", "702"} {
				a := money.NewAmount(int64(900+i*10+j), usd)
				parts, _ := money.SplitEqual(a, 2)
				_, err := api.Store.CreateExpense(ctx, title, store.Expense{GroupID: g.ID, PayerID: payer, PayerName: "Friend " + payer,
					Amount: a, Description: fmt.Sprint("dinner ", j), SplitType: store.SplitEqual, CreatedBy: payer,
					Splits: []store.Split{{UserID: payer, UserName: "Friend " + payer, Amount: parts[0]}, {UserID: u.ID, UserName: u.Name, Amount: parts[1]}}}, "")
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// The home screen of a user in 30 groups: their groups listed once (GSI1)
// with their two activity streams (GSI3) in the first wave, the groups and
// their ledgers in one batch, then the books.
func TestHomeScreenIsAtMostSixCallsInThreeWaves(t *testing.T) {
	api := apitest.NewWithLatency(t, latency)
	alice := api.User("111", "Alice")
	userInGroups(t, api, alice, 30)
	alice.Must(nil, `mutation { createGroup(input: {title: "Mine", currency: "EUR"}) { id } }`)
	var out struct {
		Me struct {
			Groups struct {
				Nodes []struct{ Balances []struct{ Net string } }
			}
			Summary struct {
				Totals []struct{ Currency, YouOwe string }
			}
		}
	}
	calls, waves := cost(t, api, alice, &out, screens.Home)
	require.LessOrEqual(t, total(calls), 6, "%v", calls)
	require.LessOrEqual(t, waves, 3)
	require.Len(t, out.Me.Groups.Nodes, 30)
	require.Len(t, out.Me.Summary.Totals, 1)
	require.Equal(t, "USD", out.Me.Summary.Totals[0].Currency)
	require.NotEqual(t, "0.00", out.Me.Summary.Totals[0].YouOwe)
	t.Logf("home screen: %v in %d waves", calls, waves)
}

// What the viewer owes, with each expense's description, payer and group:
// the shares (GSI1) and the viewer's memberships at once, then their groups
// (a deleted group's shares are left out before the page is cut, so that
// pages stay full), then the payers in one batch. The description is on the
// share's record.
func TestOwesScreenIsFourCallsInThreeWaves(t *testing.T) {
	api := apitest.NewWithLatency(t, latency)
	alice := api.User("111", "Alice")
	userInGroups(t, api, alice, 30)
	var out struct {
		Me struct {
			Owes struct {
				Nodes []struct {
					Amount  string
					Expense struct{ Description string }
					Payer   struct{ Name string }
					Group   struct{ Title string }
				}
			}
		}
	}
	calls, waves := cost(t, api, alice, &out, screens.Owes)
	require.Equal(t, map[string]int{"Query": 2, "BatchGetItem": 2}, calls)
	require.Equal(t, 3, waves)
	require.Len(t, out.Me.Owes.Nodes, 50)
	for _, n := range out.Me.Owes.Nodes {
		require.Contains(t, n.Expense.Description, "dinner ")
		require.Contains(t, n.Payer.Name, "Friend ")
		require.Contains(t, n.Group.Title, "Group ")
	}
}

// Fifty expenses by id: fifty GSI2 lookups (they cannot be batched) all in
// the first wave with the one BatchGetItem that checks whether any id is a
// group, then one BatchGetItem for the viewer's membership.
func TestFiftyExpensesByIDInOneWaveOfLookups(t *testing.T) {
	api := apitest.NewWithLatency(t, latency)
	alice := api.User("111", "Alice")
	group := bigGroup(t, api, alice)
	page, err := api.Store.ListExpenses(context.Background(), group, store.PageArgs{First: 30})
	require.NoError(t, err)
	var ids []string
	for _, e := range page.Items {
		ids = append(ids, e.ID)
	}
	more := bigGroup(t, api, alice)
	page, err = api.Store.ListExpenses(context.Background(), more, store.PageArgs{First: 20})
	require.NoError(t, err)
	for _, e := range page.Items {
		ids = append(ids, e.ID)
	}
	require.Len(t, ids, 50)
	var out struct {
		Nodes []struct{ ID, Description string }
	}
	calls, waves := cost(t, api, alice, &out, screens.ByID, "ids", ids)
	require.Equal(t, map[string]int{"Query": 50, "BatchGetItem": 2}, calls)
	require.Equal(t, 2, waves)
	require.Len(t, out.Nodes, 50)
	for i, n := range out.Nodes {
		require.Equal(t, ids[i], n.ID)
	}
}

// BenchmarkGroupScreen reports the group screen's allocations and DynamoDB
// calls per request (make bench; profile it with -cpuprofile).
func BenchmarkGroupScreen(b *testing.B) {
	api := apitest.New(b)
	alice := api.User("111", "Alice")
	group := bigGroup(b, api, alice)
	alice.Must(nil, screens.Group, "g", group)
	api.Calls.Reset()
	b.ReportAllocs()
	for b.Loop() {
		alice.Must(nil, screens.Group, "g", group)
	}
	b.ReportMetric(float64(api.Calls.Total())/float64(b.N), "dynamodb-calls/op")
}
