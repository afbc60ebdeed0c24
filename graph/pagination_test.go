package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

type pageInfo struct {
	HasNextPage, HasPreviousPage bool
	StartCursor, EndCursor       *string
}

type expensePage struct {
	Group struct {
		Expenses struct {
			Edges []struct {
				Cursor string
				Node   struct{ ID, Description string }
			}
			PageInfo pageInfo
		}
	}
}

const expensesQuery = `query($g: ID!, $first: Int, $after: String) { group(id: $g) { expenses(first: $first, after: $after) {
	edges { cursor node { id description } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`

func TestExpensesPagination(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	var want []string
	for i := range 5 {
		want = append([]string{alice.Expense(group, fmt.Sprintf("%d.00", i+1), "111")}, want...)
	}

	// Two at a time, newest first, every expense exactly once.
	var got []string
	var after any
	for page := 0; ; page++ {
		var out expensePage
		alice.Must(&out, expensesQuery, "g", group, "first", 2, "after", after)
		c := out.Group.Expenses
		require.Equal(t, page > 0, c.PageInfo.HasPreviousPage)
		for _, e := range c.Edges {
			got = append(got, e.Node.ID)
		}
		if len(c.Edges) > 0 {
			require.Equal(t, c.Edges[0].Cursor, *c.PageInfo.StartCursor)
			require.Equal(t, c.Edges[len(c.Edges)-1].Cursor, *c.PageInfo.EndCursor)
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = *c.PageInfo.EndCursor
	}
	require.Equal(t, want, got)

	// hasNextPage is exact at the boundary: first equal to the count.
	var out expensePage
	alice.Must(&out, expensesQuery, "g", group, "first", 5)
	require.False(t, out.Group.Expenses.PageInfo.HasNextPage)
	alice.Must(&out, expensesQuery, "g", group, "first", 4)
	require.True(t, out.Group.Expenses.PageInfo.HasNextPage)

	// Every edge's cursor continues right after it.
	alice.Must(&out, expensesQuery, "g", group, "first", 5)
	for i, e := range out.Group.Expenses.Edges {
		var rest expensePage
		alice.Must(&rest, expensesQuery, "g", group, "first", 100, "after", e.Cursor)
		require.Len(t, rest.Group.Expenses.Edges, 4-i)
	}

	// Default page size and an empty page.
	alice.Must(&out, expensesQuery, "g", group)
	require.Len(t, out.Group.Expenses.Edges, 5)
	alice.Must(&out, expensesQuery, "g", group, "first", 0)
	require.Empty(t, out.Group.Expenses.Edges)
	require.True(t, out.Group.Expenses.PageInfo.HasNextPage)
	require.Nil(t, out.Group.Expenses.PageInfo.EndCursor)
}

func TestPaginationArguments(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	alice.Expense(group, "1.00", "111")
	alice.Expense(group, "2.00", "111")
	other := alice.CreateGroup("Other")
	var out expensePage
	alice.Must(&out, expensesQuery, "g", group, "first", 1)
	cursor := out.Group.Expenses.Edges[0].Cursor

	for name, args := range map[string][]any{
		"first over 100":      {"first", 101},
		"negative first":      {"first", -1},
		"forged cursor":       {"after", "eyJsIjoiZXhwZW5zZXMifQ.AAAAAAAAAAAAAAAAAAAAAA"},
		"altered cursor":      {"after", strings.Replace(cursor, cursor[5:6], flip(cursor[5:6]), 1)},
		"garbage cursor":      {"after", "hello"},
		"other list's cursor": {"g", other, "after", cursor},
	} {
		t.Run(name, func(t *testing.T) {
			vars := append([]any{"g", group}, args...)
			res := alice.Fails("BAD_USER_INPUT", expensesQuery, vars...)
			require.NotContains(t, strings.ToLower(res.Errors[0].Message), "dynamo")
		})
	}
	for _, q := range []string{
		`{ me { groups(first: 101) { nodes { id } } } }`,
		`{ me { expensesPaid(first: 500) { nodes { id } } } }`,
		`{ me { owes(first: -3) { nodes { id } } } }`,
		`{ me { settlements(first: 1000) { nodes { id } } } }`,
		`{ me { activity(first: 101) { nodes { __typename } } } }`,
		`{ me { activity(after: "x") { nodes { __typename } } } }`,
	} {
		res := alice.Fails("BAD_USER_INPUT", q)
		require.Contains(t, []string{"first", ""}, res.Field(), q)
	}
}

func flip(s string) string {
	if s == "A" {
		return "B"
	}
	return "A"
}
