package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNode(t *testing.T) {
	api, group, alice, _, _ := trio(t)
	mallory := api.User("666", "Mallory")
	expense := alice.Expense(group, "9.00", "111", "222")
	settlement := alice.Settle(group, "222", "1.00")

	const q = `query($id: ID!) { node(id: $id) { __typename id
		... on Group { title } ... on Member { name } ... on Expense { amount } ... on Settlement { amount } ... on User { name } } }`
	type node struct {
		Typename string `json:"__typename"`
		ID       string
		Title    string
		Name     string
		Amount   string
	}
	for _, tc := range []struct {
		id, typename string
	}{
		{group, "Group"},
		{group + ":222", "Member"},
		{expense, "Expense"},
		{settlement, "Settlement"},
		{"111", "User"},
	} {
		t.Run(tc.typename, func(t *testing.T) {
			var out struct{ Node *node }
			alice.Must(&out, q, "id", tc.id)
			require.NotNil(t, out.Node)
			require.Equal(t, tc.typename, out.Node.Typename)
			require.Equal(t, tc.id, out.Node.ID, "node(id) returns the object with that id")

			mallory.Must(&out, q, "id", tc.id)
			require.Nil(t, out.Node, "a non-member sees nothing")
		})
	}
	for _, id := range []string{"222", group + ":999", "7d9c1f4e-0000-4000-8000-000000000000", "junk", ""} {
		var out struct{ Node *node }
		alice.Must(&out, q, "id", id)
		require.Nil(t, out.Node, id)
	}
}
