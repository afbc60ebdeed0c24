package graph_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// acrossGroups is what a member sees of their groups across the API: the
// group, its expense and settlement by id, their groups, their lists across
// groups and their summary.
const acrossGroups = `query($g: ID!, $e: ID!, $s: ID!) {
	group(id: $g) { id }
	node(id: $g) { id }
	e: node(id: $e) { id }
	s: node(id: $s) { id }
	me {
		groups(archived: null) { nodes { id } }
		expensesPaid { nodes { id } }
		owes { nodes { expense { id } } }
		settlements { nodes { id } }
		activity { nodes { ... on Expense { id } ... on Settlement { id } } }
		summary { totals { currency youAreOwed youOwe net } }
	}
}`

type seen struct {
	Group, Node, E, S *struct{ ID string }
	Me                struct {
		Groups       struct{ Nodes []struct{ ID string } }
		ExpensesPaid struct{ Nodes []struct{ ID string } }
		Owes         struct {
			Nodes []struct{ Expense struct{ ID string } }
		}
		Settlements struct{ Nodes []struct{ ID string } }
		Activity    struct{ Nodes []struct{ ID string } }
		Summary     struct {
			Totals []struct{ Currency, YouAreOwed, YouOwe, Net string }
		}
	}
}

// A deleted group disappears for everyone at the moment it is deleted: by
// id, from every list and from the summaries (which stay exact), from the
// export and from live updates; changes to it are NOT_FOUND; its owner
// restores it whole.
func TestDeleteGroup(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	doomed, kept := ann.CreateGroup("Trip"), ann.CreateGroup("Flat")
	ben.Join(doomed)
	ben.Join(kept)
	e := ann.Expense(doomed, "30.00", "1001", "1002") // Ben owes 15.00 there
	st := ben.Settle(doomed, "1001", "5.00")
	ben.Expense(kept, "20.00", "1001", "1002") // and is owed 10.00 here
	paid := ben.Expense(kept, "4.00", "1002")

	var before seen
	ben.Must(&before, acrossGroups, "g", doomed, "e", e, "s", st)
	require.NotNil(t, before.Group)
	require.Equal(t, "-5.00", before.Me.Summary.Totals[0].Net)

	c := dial(t, api, ben)
	require.NoError(t, c.Subscribe(context.Background(), "g", groupEventsSub, map[string]any{"g": doomed}))
	waitSubscribed(t, api, 1)

	ben.Fails("NOT_FOUND", `mutation($g: ID!) { deleteGroup(id: $g) }`, "g", "7b0c7d54-1d0c-4c43-9a43-9b6f0e7d2a11")
	var out struct{ DeleteGroup string }
	ann.Must(&out, `mutation($g: ID!) { deleteGroup(id: $g) }`, "g", doomed)
	require.Equal(t, doomed, out.DeleteGroup, "deleteGroup answers the id")

	completed(t, c, "g") // the subscriber's subscription ends
	for _, u := range []*apitest.User{ann, ben} {
		var after seen
		u.Must(&after, acrossGroups, "g", doomed, "e", e, "s", st)
		require.Nil(t, after.Group)
		require.Nil(t, after.Node)
		require.Nil(t, after.E)
		require.Nil(t, after.S)
		require.Equal(t, []struct{ ID string }{{kept}}, after.Me.Groups.Nodes)
		for _, n := range append(append(after.Me.ExpensesPaid.Nodes, after.Me.Settlements.Nodes...), after.Me.Activity.Nodes...) {
			require.NotContains(t, []string{e, st}, n.ID)
		}
		for _, n := range after.Me.Owes.Nodes {
			require.NotEqual(t, e, n.Expense.ID)
		}
		require.Equal(t, http.StatusNotFound, u.Get("/export/groups/"+doomed+".csv").Code)
	}
	var benAfter seen
	ben.Must(&benAfter, acrossGroups, "g", doomed, "e", e, "s", st)
	require.Len(t, benAfter.Me.ExpensesPaid.Nodes, 2)
	require.Equal(t, paid, benAfter.Me.ExpensesPaid.Nodes[0].ID)
	require.Equal(t, []struct{ Currency, YouAreOwed, YouOwe, Net string }{{"USD", "10.00", "0.00", "10.00"}}, benAfter.Me.Summary.Totals,
		"the summary is exactly the other group's from the moment of deletion")

	// Every change to it is NOT_FOUND, as for a group that never existed.
	ann.Fails("NOT_FOUND", `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "9.00", description: "x", splitType: EQUAL, splits: [{userId: "1001"}]}) { id } }`, "g", doomed)
	ann.Fails("NOT_FOUND", `mutation($g: ID!) { archiveGroup(id: $g) { id } }`, "g", doomed)
	ann.Fails("NOT_FOUND", `mutation($g: ID!) { deleteGroup(id: $g) }`, "g", doomed)
	ann.Fails("NOT_FOUND", `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", e)
	require.NoError(t, c.Subscribe(context.Background(), "again", groupEventsSub, map[string]any{"g": doomed}))
	m := next(t, c, "again")
	require.Equal(t, "error", m.Type)
	require.Contains(t, string(m.Payload), `"code":"NOT_FOUND"`)

	// Restored, it is back whole, for everyone.
	api.User("1003", "Cat").Fails("NOT_FOUND", `mutation($g: ID!) { restoreGroup(id: $g) { id } }`, "g", doomed)
	var restored struct{ RestoreGroup struct{ ID, Title string } }
	ann.Must(&restored, `mutation($g: ID!) { restoreGroup(id: $g) { id title } }`, "g", doomed)
	require.Equal(t, "Trip", restored.RestoreGroup.Title)
	var again seen
	ben.Must(&again, acrossGroups, "g", doomed, "e", e, "s", st)
	require.Equal(t, before, again)
	var events struct {
		Group struct {
			Activity struct{ Nodes []struct{ Type string } }
		}
	}
	ann.Must(&events, `query($g: ID!) { group(id: $g) { activity(first: 2) { nodes { type } } } }`, "g", doomed)
	require.Equal(t, []struct{ Type string }{{"GROUP_RESTORED"}, {"GROUP_DELETED"}}, events.Group.Activity.Nodes)
}

// Group.debts follows the group's simplifyDebts setting when simplify is
// left out; an explicit simplify wins; the setting is recorded.
func TestSimplifyDebtsSetting(t *testing.T) {
	api := apitest.New(t)
	ann, ben, cat := api.User("1001", "Ann"), api.User("1002", "Ben"), api.User("1003", "Cat")
	g := ann.CreateGroup("Trip")
	ben.Join(g)
	cat.Join(g)
	ann.Expense(g, "10.00", "1002") // Ben owes Ann 10
	ben.Expense(g, "10.00", "1003") // Cat owes Ben 10: simplified, Cat pays Ann

	debts := func(args string) [][3]string {
		var out struct {
			Group struct {
				SimplifyDebts bool
				Debts         []struct {
					From, To struct{ UserID string }
					Amount   string
				}
			}
		}
		ann.Must(&out, `query($g: ID!) { group(id: $g) { simplifyDebts debts`+args+` { from { userId } to { userId } amount } } }`, "g", g)
		var d [][3]string
		for _, x := range out.Group.Debts {
			d = append(d, [3]string{x.From.UserID, x.To.UserID, x.Amount})
		}
		return d
	}
	simplified := [][3]string{{"1003", "1001", "10.00"}}
	pairwise := [][3]string{{"1002", "1001", "10.00"}, {"1003", "1002", "10.00"}}
	require.Equal(t, simplified, debts(""), "simplified by default, as before")
	require.Equal(t, pairwise, debts("(simplify: false)"))

	ann.Must(nil, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, simplifyDebts: false}) { id } }`, "g", g)
	require.ElementsMatch(t, pairwise, debts(""), "the group's setting")
	require.ElementsMatch(t, pairwise, debts("(simplify: null)"))
	require.Equal(t, simplified, debts("(simplify: true)"), "an explicit argument wins")

	var events struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Changes []struct{ Field string }
				}
			}
		}
	}
	ann.Must(&events, `query($g: ID!) { group(id: $g) { activity(first: 1) { nodes { type changes { field } } } } }`, "g", g)
	require.Equal(t, "GROUP_UPDATED", events.Group.Activity.Nodes[0].Type)
	require.Equal(t, "simplifyDebts", events.Group.Activity.Nodes[0].Changes[0].Field)

	var created struct{ CreateGroup struct{ SimplifyDebts bool } }
	ann.Must(&created, `mutation { createGroup(input: {title: "P", currency: "USD", simplifyDebts: false}) { simplifyDebts } }`)
	require.False(t, created.CreateGroup.SimplifyDebts)
}
