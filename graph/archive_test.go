package graph_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// An archived group answers every change FORBIDDEN with the reason
// GROUP_ARCHIVED and how to reopen it, reads it as before, leaves
// User.groups unless asked for, and takes changes again once unarchived.
func TestArchiveGroup(t *testing.T) {
	api := apitest.New(t)
	alice, bob, carol, dave := api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol"), api.User("444", "Dave")
	g := alice.CreateGroup("Trip")
	bob.Join(g)
	dave.Join(g) // with nothing to settle: free to leave, but for the archive
	other := alice.CreateGroup("Flat")
	invite := alice.Invite(g)
	e := alice.Expense(g, "30.00", "111", "222")
	st := bob.Settle(g, "111", "5.00")

	var out struct {
		ArchiveGroup struct {
			ID         string
			ArchivedAt *string
		}
	}
	dave.Fails("FORBIDDEN", `mutation($id: ID!) { archiveGroup(id: $id) { id } }`, "id", g) // archiving is the admins' by default
	alice.Must(nil, `mutation($id: ID!) { setMemberRole(groupId: $id, userId: "222", role: ADMIN) { id } }`, "id", g)
	bob.Must(&out, `mutation($id: ID!) { archiveGroup(id: $id) { id archivedAt } }`, "id", g)
	require.NotNil(t, out.ArchiveGroup.ArchivedAt)
	first := *out.ArchiveGroup.ArchivedAt
	alice.Must(&out, `mutation($id: ID!) { archiveGroup(id: $id) { id archivedAt } }`, "id", g)
	require.Equal(t, first, *out.ArchiveGroup.ArchivedAt, "archiving twice changes nothing")

	for _, tc := range []struct {
		name, query string
		user        *apitest.User
		vars        []any
	}{
		{"createExpense", `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "9.00", description: "x", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`, alice, []any{"g", g}},
		{"updateExpense", `mutation($id: ID!) { updateExpense(id: $id, input: {expectedVersion: 1, description: "y"}) { id } }`, alice, []any{"id", e}},
		{"deleteExpense", `mutation($id: ID!) { deleteExpense(id: $id) }`, alice, []any{"id", e}},
		{"createSettlement", `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "1.00"}) { id } }`, bob, []any{"g", g}},
		{"updateSettlement", `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, alice, []any{"id", st}},
		{"addComment", `mutation($id: ID!) { addComment(expenseId: $id, body: "hi") { id } }`, bob, []any{"id", e}},
		{"createInvite", `mutation($g: ID!) { createInvite(groupId: $g) { id } }`, alice, []any{"g", g}},
		{"updateGroup", `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "New"}) { id } }`, alice, []any{"g", g}},
		{"addPlaceholderMember", `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Dan") { id } }`, alice, []any{"g", g}},
		{"leaveGroup", `mutation($g: ID!) { leaveGroup(groupId: $g) }`, dave, []any{"g", g}},
		{"joinGroup", `mutation($i: String!) { joinGroup(invite: $i) { id } }`, carol, []any{"i", invite}},
		{"remindDebtors", `mutation($g: ID!) { remindDebtors(groupId: $g) { directMessages } }`, alice, []any{"g", g}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.user.Fails("FORBIDDEN", tc.query, tc.vars...)
			require.Equal(t, "GROUP_ARCHIVED", res.Errors[0].Extensions["reason"])
			require.Contains(t, res.Errors[0].Message, "unarchiveGroup")
		})
	}

	var read struct {
		Group struct {
			Title      string
			ArchivedAt *string
			Expenses   struct{ Nodes []struct{ ID string } }
			Balances   []struct{ Net string }
		}
	}
	alice.Must(&read, `query($g: ID!) { group(id: $g) { title archivedAt expenses { nodes { id } } balances { net } } }`, "g", g)
	require.Equal(t, "Trip", read.Group.Title, "reads work, and nothing changed")
	require.Len(t, read.Group.Expenses.Nodes, 1)
	require.Len(t, read.Group.Balances, 3)

	require.Equal(t, []string{other}, myGroups(alice, ""), "hidden from User.groups by default")
	require.Equal(t, []string{other}, myGroups(alice, "(archived: false)"))
	require.Equal(t, []string{g}, myGroups(alice, "(archived: true)"))
	require.ElementsMatch(t, []string{g, other}, myGroups(alice, "(archived: null)"))

	var back struct{ UnarchiveGroup struct{ ArchivedAt *string } }
	carol.Fails("NOT_FOUND", `mutation($id: ID!) { unarchiveGroup(id: $id) { archivedAt } }`, "id", g)
	alice.Must(&back, `mutation($id: ID!) { unarchiveGroup(id: $id) { archivedAt } }`, "id", g)
	require.Nil(t, back.UnarchiveGroup.ArchivedAt)
	alice.Expense(g, "8.00", "111", "222")
	carol.Join(g)

	var events struct {
		Group struct {
			Activity struct{ Nodes []struct{ Type string } }
		}
	}
	alice.Must(&events, `query($g: ID!) { group(id: $g) { activity(first: 5) { nodes { type } } } }`, "g", g)
	var types []string
	for _, n := range events.Group.Activity.Nodes {
		types = append(types, n.Type)
	}
	// Carol joins with an invite made for her: INVITE_CREATED, then her MEMBER_JOINED.
	require.Equal(t, []string{"MEMBER_JOINED", "INVITE_CREATED", "EXPENSE_CREATED", "GROUP_UNARCHIVED", "GROUP_ARCHIVED"}, types,
		"archived once (the second archive recorded nothing), unarchived once")
}

// myGroups is the ids of u's groups, User.groups called with args.
func myGroups(u *apitest.User, args string) []string {
	var out struct {
		Me struct {
			Groups struct{ Nodes []struct{ ID string } }
		}
	}
	u.Must(&out, `{ me { groups`+args+` { nodes { id } } } }`)
	ids := []string{}
	for _, n := range out.Me.Groups.Nodes {
		ids = append(ids, n.ID)
	}
	return ids
}
