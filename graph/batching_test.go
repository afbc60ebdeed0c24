package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// listOf50 is a group of ten members with 50 expenses paid by all of them,
// each split among four members.
func listOf50(t testing.TB, opts ...apitest.Option) (*apitest.API, *apitest.User, string) {
	api := apitest.New(t, opts...)
	users := make([]*apitest.User, 10)
	for i := range users {
		users[i] = api.User(fmt.Sprint(100+i), fmt.Sprint("Member ", i))
	}
	group := users[0].CreateGroup("Big trip")
	for _, u := range users[1:] {
		u.Join(group)
	}
	for i := range 50 {
		payer := users[i%10]
		payer.Expense(group, "12.00", fmt.Sprint(100+i%10), fmt.Sprint(100+(i+1)%10), fmt.Sprint(100+(i+2)%10), fmt.Sprint(100+(i+5)%10))
	}
	return api, users[0], group
}

const fiftyExpenses = `query($g: ID!) { group(id: $g) { title expenses(first: 50) { nodes {
	id amount group { id title } payer { name wallet } splits { amount member { name } }
} } } }`

// The page of 50 expenses with their group, payers and every beneficiary
// costs three calls, all sent at once: the group (BatchGetItem), the
// expenses (Query), and the group's roster (Query), which answers both the
// check of the viewer's membership and every payer and beneficiary. The
// access token costs none: its lookup is cached since alice's earlier
// requests. The batch window is widened here so
// the count tests the batching, not the speed of a shared machine;
// BenchmarkListOf50Expenses measures the default window.
func TestListOf50ExpensesCostsAHandfulOfCalls(t *testing.T) {
	api, alice, group := listOf50(t, apitest.LoaderWait(50*time.Millisecond))
	for range 3 {
		api.Calls.Reset()
		var out struct {
			Group struct {
				Expenses struct {
					Nodes []struct {
						Payer  struct{ Name string }
						Splits []struct{ Member struct{ Name string } }
					}
				}
			}
		}
		alice.Must(&out, fiftyExpenses, "g", group)
		require.Len(t, out.Group.Expenses.Nodes, 50)
		for _, e := range out.Group.Expenses.Nodes {
			require.NotEmpty(t, e.Payer.Name)
			require.Len(t, e.Splits, 4)
		}
		require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 2}, api.Calls.ByOperation())
	}
}

// BenchmarkListOf50Expenses reports DynamoDB calls per request with the
// default batch window.
func BenchmarkListOf50Expenses(b *testing.B) {
	api, alice, group := listOf50(b)
	api.Calls.Reset()
	b.ReportAllocs()
	for b.Loop() {
		alice.Must(nil, fiftyExpenses, "g", group)
	}
	b.ReportMetric(float64(api.Calls.Total())/float64(b.N), "dynamodb-calls/op")
}

// BenchmarkLoneLookup is one group by id: what the batch window costs a
// request that has nothing to batch.
func BenchmarkLoneLookup(b *testing.B) {
	for _, wait := range []time.Duration{500 * time.Microsecond, 2 * time.Millisecond, 16 * time.Millisecond} {
		b.Run(fmt.Sprint("wait=", wait), func(b *testing.B) {
			api := apitest.New(b, apitest.LoaderWait(wait))
			alice := api.User("1", "Alice")
			group := alice.CreateGroup("Trip")
			for b.Loop() {
				alice.Must(nil, `query($g: ID!) { group(id: $g) { title } }`, "g", group)
			}
		})
	}
}
