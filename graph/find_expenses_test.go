package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

const findQuery = `query($g: ID!, $f: ExpenseFilter, $n: Int, $after: String) { group(id: $g) {
	expenses(first: $n, after: $after, filter: $f) { nodes { description spentOn } pageInfo { hasNextPage endCursor } } } }`

type foundPage struct {
	Group *struct {
		Expenses struct {
			Nodes    []struct{ Description, SpentOn string }
			PageInfo pageInfo
		}
	}
}

// findAll pages through a group's expenses that filter finds, n at a time,
// and returns their descriptions; the page after the last is empty.
func findAll(t *testing.T, u *apitest.User, group string, filter map[string]any, n int) []string {
	t.Helper()
	out := []string{}
	var after any
	for range 100 {
		var p foundPage
		u.Must(&p, findQuery, "g", group, "f", filter, "n", n, "after", after)
		require.LessOrEqual(t, len(p.Group.Expenses.Nodes), n)
		for _, e := range p.Group.Expenses.Nodes {
			out = append(out, e.Description)
		}
		if !p.Group.Expenses.PageInfo.HasNextPage {
			if p.Group.Expenses.PageInfo.EndCursor != nil {
				var rest foundPage
				u.Must(&rest, findQuery, "g", group, "f", filter, "n", n, "after", *p.Group.Expenses.PageInfo.EndCursor)
				require.Empty(t, rest.Group.Expenses.Nodes, "nothing after the last page")
			}
			return out
		}
		require.Len(t, p.Group.Expenses.Nodes, n, "a page with more to follow is full")
		after = *p.Group.Expenses.PageInfo.EndCursor
	}
	t.Fatal("pagination does not end")
	return nil
}

// spend records an expense through the API and returns its id.
func spend(t *testing.T, u *apitest.User, in map[string]any) string {
	t.Helper()
	var out struct{ CreateExpense struct{ ID string } }
	u.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", in)
	return out.CreateExpense.ID
}

// tokyoTrip is a group in Asia/Tokyo of Alice (111), Bob (222) and Carol
// (333) with five expenses, recorded in this order:
//
//	Hotel    Alice 300.00 USD for all       2024-01-05 (Tokyo)  lodging
//	Café     Bob    12.50 USD for Bob, Carol 2024-01-06 05:30 Tokyo = 01-05 20:30 UTC   food
//	寿司      Carol  4500 JPY for Alice, Carol 2024-01-07  food
//	Такси    Alice 20 + Bob 10 EUR for Alice, Bob   2024-01-03   (none)
//	Museum   Alice  30.00 USD for Alice, Bob 2023-12-24 (backdated) culture
func tokyoTrip(t *testing.T) (api *apitest.API, group string, alice, bob, carol *apitest.User, ids map[string]string) {
	api = apitest.New(t)
	alice, bob, carol = api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	var g struct{ CreateGroup struct{ ID string } }
	alice.Must(&g, `mutation { createGroup(input: {title: "Tokyo", currency: "USD", timeZone: "Asia/Tokyo"}) { id } }`)
	group = g.CreateGroup.ID
	bob.Join(group)
	carol.Join(group)
	splits := func(users ...string) []any {
		out := []any{}
		for _, u := range users {
			out = append(out, map[string]any{"userId": u})
		}
		return out
	}
	ids = map[string]string{}
	ids["Hotel"] = spend(t, alice, map[string]any{"groupId": group, "amount": "300.00", "description": "Hotel", "category": "lodging",
		"splitType": "EQUAL", "splits": splits("111", "222", "333"), "spentAt": "2024-01-05T03:00:00Z"})
	ids["Café"] = spend(t, bob, map[string]any{"groupId": group, "amount": "12.50", "description": "Café Roma", "category": "food",
		"splitType": "EQUAL", "splits": splits("222", "333"), "spentAt": "2024-01-05T20:30:00Z"})
	ids["寿司"] = spend(t, carol, map[string]any{"groupId": group, "amount": "4500", "currency": "JPY", "description": "東京の寿司", "category": "food",
		"splitType": "EQUAL", "splits": splits("111", "333"), "spentAt": "2024-01-07T03:00:00Z"})
	ids["Такси"] = spend(t, alice, map[string]any{"groupId": group, "amount": "30", "currency": "EUR", "description": "Такси в аэропорт",
		"payers":    []any{map[string]any{"userId": "111", "amount": "20"}, map[string]any{"userId": "222", "amount": "10"}},
		"splitType": "EQUAL", "splits": splits("111", "222"), "spentAt": "2024-01-03T03:00:00Z"})
	ids["Museum"] = spend(t, alice, map[string]any{"groupId": group, "amount": "30.00", "description": "Museum", "category": "culture",
		"splitType": "EQUAL", "splits": splits("111", "222"), "spentAt": "2023-12-24T03:00:00Z"})
	return
}

func TestGroupExpensesFilters(t *testing.T) {
	t.Parallel()
	_, group, alice, bob, _, ids := tokyoTrip(t)
	var c struct{ AddComment struct{ ID string } }
	bob.Must(&c, `mutation($e: ID!) { addComment(expenseId: $e, body: "Paid by card at the FRONT DESK") { id } }`, "e", ids["Hotel"])

	for name, tc := range map[string]struct {
		filter map[string]any
		want   []string
	}{
		"no filter: newest recorded first": {nil, []string{"Museum", "Такси в аэропорт", "東京の寿司", "Café Roma", "Hotel"}},
		"an empty filter is no filter":     {map[string]any{}, []string{"Museum", "Такси в аэропорт", "東京の寿司", "Café Roma", "Hotel"}},
		"days in the group's zone, newest spent first": {map[string]any{"from": "2024-01-06", "to": "2024-01-07"},
			[]string{"東京の寿司", "Café Roma"}},
		"the backdated one by its day": {map[string]any{"to": "2023-12-31"}, []string{"Museum"}},
		"from only":                    {map[string]any{"from": "2024-01-05"}, []string{"東京の寿司", "Café Roma", "Hotel"}},
		"category":                     {map[string]any{"category": "food"}, []string{"東京の寿司", "Café Roma"}},
		"no category":                  {map[string]any{"category": ""}, []string{"Такси в аэропорт"}},
		"payer among several":          {map[string]any{"payerId": "222"}, []string{"Такси в аэропорт", "Café Roma"}},
		"participant":                  {map[string]any{"participantId": "333"}, []string{"東京の寿司", "Café Roma", "Hotel"}},
		"currency":                     {map[string]any{"currency": "USD"}, []string{"Museum", "Café Roma", "Hotel"}},
		"amounts in the currency":      {map[string]any{"currency": "USD", "minAmount": "12.50", "maxAmount": "30.00"}, []string{"Museum", "Café Roma"}},
		"amounts as decimals":          {map[string]any{"minAmount": "30"}, []string{"Museum", "Такси в аэропорт", "東京の寿司", "Hotel"}},
		"search: case and accents":     {map[string]any{"search": "CAFE"}, []string{"Café Roma"}},
		"search: Cyrillic":             {map[string]any{"search": "такси"}, []string{"Такси в аэропорт"}},
		"search: Japanese":             {map[string]any{"search": "寿司"}, []string{"東京の寿司"}},
		"search: a comment's words":    {map[string]any{"search": "front desk"}, []string{"Hotel"}},
		"combined":                     {map[string]any{"from": "2024-01-01", "category": "food", "participantId": "222"}, []string{"Café Roma"}},
		"deleted: none":                {map[string]any{"deleted": true}, []string{}},
		"nothing matches":              {map[string]any{"search": "pizza"}, []string{}},
	} {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{1, 2, 20} {
				require.Equal(t, tc.want, findAll(t, alice, group, tc.filter, n), "pages of %d", n)
			}
		})
	}

	// Deleted: in the deleted list until restored; an edit of spentAt moves
	// the expense to its new day.
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", ids["Hotel"])
	require.Equal(t, []string{"Hotel"}, findAll(t, alice, group, map[string]any{"deleted": true, "from": "2024-01-05"}, 2))
	require.Equal(t, []string{"Café Roma"}, findAll(t, alice, group, map[string]any{"from": "2024-01-05", "to": "2024-01-06"}, 2))
	alice.Must(nil, `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", ids["Hotel"])
	require.Equal(t, []string{}, findAll(t, alice, group, map[string]any{"deleted": true}, 2))
	alice.Must(nil, `mutation($id: ID!) { updateExpense(id: $id, input: {expectedVersion: 3, spentAt: "2024-02-01T03:00:00Z"}) { id } }`, "id", ids["Hotel"])
	require.Equal(t, []string{"Hotel"}, findAll(t, alice, group, map[string]any{"from": "2024-02-01"}, 2))
	require.Equal(t, []string{"Café Roma"}, findAll(t, alice, group, map[string]any{"from": "2024-01-05", "to": "2024-01-06"}, 2))
}

func TestExpenseFilterValidation(t *testing.T) {
	t.Parallel()
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	for _, tc := range []struct {
		filter map[string]any
		field  string
	}{
		{map[string]any{"from": "2024-02-01", "to": "2024-01-01"}, "filter.to"},
		{map[string]any{"currency": "XYZ"}, "filter.currency"},
		{map[string]any{"currency": "USD", "minAmount": "1.001"}, "filter.minAmount"},
		{map[string]any{"currency": "JPY", "maxAmount": "1.5"}, "filter.maxAmount"},
		{map[string]any{"minAmount": "-1"}, "filter.minAmount"},
		{map[string]any{"minAmount": "10", "maxAmount": "9.99"}, "filter.maxAmount"},
		{map[string]any{"payerId": "not a user"}, "filter.payerId"},
		{map[string]any{"participantId": "0"}, "filter.participantId"},
		{map[string]any{"search": "!!! ..."}, "filter.search"},
		{map[string]any{"search": "a b c d e f g h i j k"}, "filter.search"},
		{map[string]any{"category": "a\nb"}, "filter.category"},
	} {
		res := alice.Fails("BAD_USER_INPUT", findQuery, "g", group, "f", tc.filter, "n", 5)
		require.Equal(t, tc.field, res.Field(), "%v", tc.filter)
	}
	// A day that is not one is refused by its type.
	alice.Fails("BAD_USER_INPUT", findQuery, "g", group, "f", map[string]any{"from": "2024-02-30"}, "n", 5)
	// me.expenses checks the same way.
	res := alice.Fails("BAD_USER_INPUT", `{ me { expenses(filter: {from: "2024-02-01", to: "2024-01-01"}) { nodes { id } } } }`)
	require.Equal(t, "filter.to", res.Field())
}

const userFindQuery = `query($f: ExpenseFilter, $n: Int, $after: String) { me {
	expenses(filter: $f, first: $n, after: $after) { nodes { description group { title } } pageInfo { hasNextPage endCursor } } } }`

// userFindAll pages through me.expenses n at a time.
func userFindAll(t *testing.T, u *apitest.User, filter map[string]any, n int) []string {
	t.Helper()
	out := []string{}
	var after any
	for range 100 {
		var p struct {
			Me struct {
				Expenses struct {
					Nodes []struct {
						Description string
						Group       struct{ Title string }
					}
					PageInfo pageInfo
				}
			}
		}
		u.Must(&p, userFindQuery, "f", filter, "n", n, "after", after)
		for _, e := range p.Me.Expenses.Nodes {
			out = append(out, e.Group.Title+": "+e.Description)
		}
		if !p.Me.Expenses.PageInfo.HasNextPage {
			return out
		}
		require.Len(t, p.Me.Expenses.Nodes, n)
		after = *p.Me.Expenses.PageInfo.EndCursor
	}
	t.Fatal("pagination does not end")
	return nil
}

// The viewer's expenses across their groups, merged; nobody sees a group
// they are not in, whatever the filter.
func TestUserExpensesAcrossGroups(t *testing.T) {
	t.Parallel()
	api := apitest.New(t)
	alice, bob, dave := api.User("111", "Alice"), api.User("222", "Bob"), api.User("444", "Dave")
	home, trip := alice.CreateGroup("Home"), alice.CreateGroup("Trip")
	bob.Join(trip)
	for i := range 6 {
		g, u := home, alice
		if i%2 == 1 {
			g, u = trip, bob
		}
		spend(t, u, map[string]any{"groupId": g, "amount": "10.00", "description": fmt.Sprint("e", i), "category": []string{"a", "b"}[i%3%2],
			"splitType": "EQUAL", "splits": []any{map[string]any{"userId": u.ID}}, "spentAt": fmt.Sprintf("2024-06-%02dT12:00:00Z", 10-i)})
	}
	for _, n := range []int{1, 2, 10} {
		require.Equal(t, []string{"Trip: e5", "Home: e4", "Trip: e3", "Home: e2", "Trip: e1", "Home: e0"}, userFindAll(t, alice, nil, n), "pages of %d", n)
		require.Equal(t, []string{"Trip: e1", "Home: e2", "Trip: e3"}, userFindAll(t, alice, map[string]any{"from": "2024-06-07", "to": "2024-06-09"}, n), "by day, pages of %d", n)
		require.Equal(t, []string{"Trip: e5", "Trip: e3", "Home: e2", "Home: e0"}, userFindAll(t, alice, map[string]any{"category": "a"}, n), "pages of %d", n)
		require.Equal(t, []string{"Trip: e5", "Trip: e3"}, userFindAll(t, bob, map[string]any{"category": "a"}, n), "Bob is in Trip alone")
	}
	// Dave is in neither group: no filter shows him anything of theirs.
	for _, f := range []map[string]any{nil, {"from": "2024-01-01"}, {"category": "a"}, {"search": "e"}, {"deleted": true}, {"payerId": "111"}} {
		require.Equal(t, []string{}, userFindAll(t, dave, f, 5))
		var p foundPage
		dave.Must(&p, findQuery, "g", home, "f", f, "n", 5)
		require.Nil(t, p.Group)
	}
}

// Occurrences of a recurring expense and imported expenses are found by
// their days like any other.
func TestFindExpensesOfRecurringAndImports(t *testing.T) {
	t.Parallel()
	api, group, alice, _, _ := trio(t)
	var sr struct{ CreateRecurringExpense struct{ ID string } }
	alice.Must(&sr, `mutation($g: ID!, $on: Date!) { createRecurringExpense(input: {template: {groupId: $g, amount: "9.00", description: "Streaming",
		splitType: EQUAL, splits: [{userId: "111"}, {userId: "222"}]}, every: DAY, startsOn: $on}) { id } }`, "g", group, "on", today(-2))
	run, err := api.Store.RunRecurring(context.Background(), 31)
	require.NoError(t, err)
	require.Equal(t, 3, run.Created)
	require.Equal(t, []string{"Streaming"}, findAll(t, alice, group, map[string]any{"from": today(-1), "to": today(-1)}, 5))
	require.Equal(t, []string{"Streaming", "Streaming", "Streaming"}, findAll(t, alice, group, map[string]any{"from": today(-2)}, 2))

	var imp importReport
	alice.Must(&imp, importMutation, "file", splitwiseFile(t, "group_two_currencies_crlf.csv"), "dry", false)
	imported := imp.ImportGroup.Group.ID
	found := findAll(t, alice, imported, map[string]any{"from": "2026-03-01", "to": "2026-03-02"}, 2)
	require.Equal(t, "Two payers", found[0], "the newest day first")
	require.ElementsMatch(t, []string{"Dinner, beach shack", "Hotel"}, found[1:], "then the first day's (recorded at the same time)")
	require.Equal(t, []string{"Cab"}, findAll(t, alice, imported, map[string]any{"currency": "USD", "search": "cab"}, 2))
}

// A range of days costs its day items and the page's expenses, whatever
// else the group holds; a filter without days stops reading once the page
// and one more are found. Without a filter the list reads as it always did.
func TestFindExpensesCost(t *testing.T) {
	t.Parallel()
	api, group, alice, _, _ := trio(t)
	for i := range 30 {
		cat := "early"
		if i >= 20 {
			cat = "late"
		}
		spend(t, alice, map[string]any{"groupId": group, "amount": "10.00", "description": fmt.Sprint("e", i), "category": cat,
			"splitType": "EQUAL", "splits": []any{map[string]any{"userId": "111"}}, "spentAt": fmt.Sprintf("2024-04-%02dT12:00:00Z", 1+i)})
	}
	cost := func(filter map[string]any) (map[string]int, int) {
		api.Calls.Reset()
		var p foundPage
		alice.Must(&p, findQuery, "g", group, "f", filter, "n", 5)
		require.Len(t, p.Group.Expenses.Nodes, 5)
		require.True(t, p.Group.Expenses.PageInfo.HasNextPage)
		return api.Calls.ByOperation(), api.Calls.ItemsRead()
	}
	plain, plainItems := cost(nil)
	// The group and the viewer's membership are one BatchGetItem, its
	// roster a Query, the page another.
	require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 2}, plain)

	calls, items := cost(map[string]any{"from": "2024-04-05", "to": "2024-04-24"})
	require.Equal(t, map[string]int{"BatchGetItem": 2, "Query": 2}, calls, "the days, then the page's expenses")
	require.Equal(t, plainItems-6+6+5, items, "six day items and five expenses instead of six expenses")

	calls, items = cost(map[string]any{"category": "late"})
	require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 2}, calls)
	require.Equal(t, plainItems, items, "the six newest are late: read as many as without a filter")
}
