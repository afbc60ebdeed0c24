package graph_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// The write screens, counted like the read screens: a write reads what it
// needs in one wave with the check of the viewer (the group, the viewer's
// membership and those of the users it names), then writes, and its answer
// naming members reads nothing more (an entry's write leaves memberships as
// they were). cmd/bench measures them beside the raw SDK's same writes.
func TestWriteScreensCostWhatTheirWritesNeed(t *testing.T) {
	api := apitest.NewWithLatency(t, latency)
	alice, bob, carol := api.User("101", "Alice"), api.User("102", "Bob"), api.User("103", "Carol")
	g := alice.CreateGroup("Trip")
	bob.Join(g)
	carol.Join(g)

	create := `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "60.00", description: "Dinner", splitType: EQUAL,
		splits: [{userId: "101"}, {userId: "102"}, {userId: "103"}]}) {
		id version amount payer { id name } splits { member { id name } amount } } }`
	calls, waves := cost(t, api, alice, nil, create, "g", g)
	require.Equal(t, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}, calls)
	require.Equal(t, 2, waves)

	settle := `mutation($g: ID!) { createSettlement(input: {groupId: $g, fromUserId: "102", amount: "5.00"}) { id status from { name } to { name } } }`
	calls, waves = cost(t, api, alice, nil, settle, "g", g)
	require.Equal(t, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}, calls)
	require.Equal(t, 2, waves)

	e := alice.Expense(g, "30.00", "101", "102")
	comment := `mutation($e: ID!) { addComment(expenseId: $e, body: "Thanks!") { id body author { name } } }`
	calls, waves = cost(t, api, alice, nil, comment, "e", e)
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1, "TransactWriteItems": 1}, calls, "the expense by id, then the viewer's membership")
	require.Equal(t, 3, waves)

	// An edit reads the expense by id, then its latest version with the
	// group and the memberships of everyone it and the edit name, in one call.
	fewest, fewestWaves := map[string]int(nil), 0
	for v := 1; v <= 4; v++ {
		api.Calls.Reset()
		alice.Must(nil, `mutation($id: ID!, $a: Decimal!, $v: Int!) { updateExpense(id: $id, input: {amount: $a, expectedVersion: $v,
			splits: [{userId: "101"}, {userId: "102"}, {userId: "103"}]}) { id version payer { name } splits { member { name } amount } } }`,
			"id", e, "a", fmt.Sprintf("%d.00", 40+v), "v", v)
		if got := api.Calls.ByOperation(); v == 2 || (v > 2 && total(got) < total(fewest)) {
			fewest = got
		}
		if w := api.Calls.Waves(); v == 2 || (v > 2 && w < fewestWaves) {
			fewestWaves = w
		}
	}
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1, "TransactWriteItems": 1}, fewest)
	require.Equal(t, 3, fewestWaves)
}
