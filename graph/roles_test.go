package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/stretchr/testify/require"
)

// roleGroup is a group of Alice (owner), Bob (admin), Carol (member), Dan
// (who left) and a placeholder, as the role tests use it.
type roleGroup struct {
	api                    *apitest.API
	id                     string
	alice, bob, carol, dan *apitest.User
	eve                    *apitest.User // never a member
	placeholder            string
}

func newRoleGroup(t *testing.T) *roleGroup {
	t.Helper()
	api := apitest.New(t)
	g := &roleGroup{api: api, alice: api.User("101", "Alice"), bob: api.User("102", "Bob"),
		carol: api.User("103", "Carol"), dan: api.User("104", "Dan"), eve: api.User("105", "Eve")}
	g.id = g.alice.CreateGroup("Flat")
	for _, u := range []*apitest.User{g.bob, g.carol, g.dan} {
		u.Join(g.id)
	}
	g.dan.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g.id)
	g.alice.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "102", role: ADMIN) { id } }`, "g", g.id)
	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	g.alice.Must(&ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Tom") { userId } }`, "g", g.id)
	g.placeholder = ph.AddPlaceholderMember.UserID
	return g
}

// roles reads every member's role as u sees it.
func (g *roleGroup) roles(t *testing.T, u *apitest.User) map[string]string {
	t.Helper()
	var out struct {
		Group struct {
			ViewerRole string
			Members    struct {
				Nodes []struct{ UserID, Role string }
			}
		}
	}
	u.Must(&out, `query($g: ID!) { group(id: $g) { viewerRole members { nodes { userId role } } } }`, "g", g.id)
	roles := map[string]string{"viewer": out.Group.ViewerRole}
	for _, m := range out.Group.Members.Nodes {
		roles[m.UserID] = m.Role
	}
	return roles
}

func TestRolesCreatorOwnsAndAdminsManage(t *testing.T) {
	g := newRoleGroup(t)
	require.Equal(t, map[string]string{"viewer": "MEMBER", "101": "OWNER", "102": "ADMIN", "103": "MEMBER", g.placeholder: "MEMBER"},
		g.roles(t, g.carol))

	// A former member has no role.
	var dan struct{ Node struct{ Role *string } }
	g.alice.Must(&dan, `query($id: ID!) { node(id: $id) { ... on Member { role } } }`, "id", g.id+":104")
	require.Nil(t, dan.Node.Role)

	// An admin makes a member an admin and back; a member may not.
	g.bob.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "103", role: ADMIN) { role } }`, "g", g.id)
	require.Equal(t, "ADMIN", g.roles(t, g.alice)["103"])
	g.bob.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "103", role: MEMBER) { role } }`, "g", g.id)
	res := g.carol.Fails("FORBIDDEN", `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "102", role: MEMBER) { role } }`, "g", g.id)
	require.Equal(t, "ADMIN", res.Errors[0].Extensions["requiredRole"])

	// Only an owner makes an owner or touches one.
	g.bob.Fails("FORBIDDEN", `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "103", role: OWNER) { role } }`, "g", g.id)
	g.bob.Fails("FORBIDDEN", `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "101", role: MEMBER) { role } }`, "g", g.id)
	// The last owner cannot step down, nor leave.
	g.alice.Fails("CONFLICT", `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "101", role: ADMIN) { role } }`, "g", g.id)
	g.alice.Fails("CONFLICT", `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g.id)
	// A placeholder has no role to change; a former member is not there.
	g.alice.Fails("BAD_USER_INPUT", `mutation($g: ID!, $u: ID!) { setMemberRole(groupId: $g, userId: $u, role: ADMIN) { role } }`, "g", g.id, "u", g.placeholder)
	g.alice.Fails("NOT_FOUND", `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "104", role: ADMIN) { role } }`, "g", g.id)

	// Handing over: Carol owns, Alice is an admin, and Alice may now leave.
	g.bob.Fails("FORBIDDEN", `mutation($g: ID!) { transferOwnership(groupId: $g, userId: "103") { role } }`, "g", g.id)
	var handed struct{ TransferOwnership struct{ UserID, Role string } }
	g.alice.Must(&handed, `mutation($g: ID!) { transferOwnership(groupId: $g, userId: "103") { userId role } }`, "g", g.id)
	require.Equal(t, "OWNER", handed.TransferOwnership.Role)
	require.Equal(t, map[string]string{"viewer": "ADMIN", "101": "ADMIN", "102": "ADMIN", "103": "OWNER", g.placeholder: "MEMBER"},
		g.roles(t, g.alice))
	g.alice.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g.id)

	// Two owners: either may step down while the other stays.
	g.carol.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "102", role: OWNER) { role } }`, "g", g.id)
	g.bob.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "103", role: MEMBER) { role } }`, "g", g.id)
	require.Equal(t, "OWNER", g.roles(t, g.bob)["102"])
	require.Equal(t, "MEMBER", g.roles(t, g.bob)["103"])

	// Every change is on the activity log.
	var log struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Actor   struct{ UserID string }
					Changes []struct{ Field, Before, After string }
				}
			}
		}
	}
	g.bob.Must(&log, `query($g: ID!) { group(id: $g) { activity(first: 4) { nodes { type actor { userId } changes { field before after } } } } }`, "g", g.id)
	types := []string{}
	for _, n := range log.Group.Activity.Nodes {
		types = append(types, n.Type)
	}
	require.Equal(t, []string{"MEMBER_ROLE_CHANGED", "MEMBER_ROLE_CHANGED", "MEMBER_LEFT", "OWNERSHIP_TRANSFERRED"}, types)
	require.Equal(t, "102", log.Group.Activity.Nodes[0].Actor.UserID)
	require.Equal(t, []struct{ Field, Before, After string }{{"role", "OWNER", "MEMBER"}}, log.Group.Activity.Nodes[0].Changes)
}

func TestRemoveMember(t *testing.T) {
	g := newRoleGroup(t)
	// Carol owes Alice: she cannot be removed until it is settled.
	g.alice.Expense(g.id, "10.00", "101", "103")
	res := g.bob.Fails("CONFLICT", `mutation($g: ID!) { removeMember(groupId: $g, userId: "103") }`, "g", g.id)
	require.Contains(t, res.Errors[0].Message, "Carol's balance is -5.00 USD")

	// By default only admins remove: Carol may not remove anyone.
	g.carol.Fails("FORBIDDEN", `mutation($g: ID!, $u: ID!) { removeMember(groupId: $g, userId: $u) }`, "g", g.id, "u", g.placeholder)
	// An owner cannot be removed; an admin only by an owner.
	g.bob.Fails("FORBIDDEN", `mutation($g: ID!) { removeMember(groupId: $g, userId: "101") }`, "g", g.id)
	g.bob.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "103", role: ADMIN) { role } }`, "g", g.id)
	g.carol.Fails("FORBIDDEN", `mutation($g: ID!) { removeMember(groupId: $g, userId: "102") }`, "g", g.id)
	g.bob.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "103", role: MEMBER) { role } }`, "g", g.id)
	// Yourself: leaveGroup.
	g.bob.Fails("BAD_USER_INPUT", `mutation($g: ID!) { removeMember(groupId: $g, userId: "102") }`, "g", g.id)

	// A placeholder nothing names goes; one an expense names stays.
	var id struct{ RemoveMember string }
	g.bob.Must(&id, `mutation($g: ID!, $u: ID!) { removeMember(groupId: $g, userId: $u) }`, "g", g.id, "u", g.placeholder)
	require.Equal(t, g.id+":"+g.placeholder, id.RemoveMember)
	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	g.alice.Must(&ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Ann") { userId } }`, "g", g.id)
	g.alice.Expense(g.id, "3.00", "101", ph.AddPlaceholderMember.UserID)
	res = g.bob.Fails("CONFLICT", `mutation($g: ID!, $u: ID!) { removeMember(groupId: $g, userId: $u) }`, "g", g.id, "u", ph.AddPlaceholderMember.UserID)
	require.Contains(t, res.Errors[0].Message, "named by expenses or settlements")

	// Settled, Carol is removed: a former member, whose credentials no
	// longer reach the group.
	g.carol.Settle(g.id, "101", "5.00")
	var settled struct {
		Group struct {
			Settlements struct{ Nodes []struct{ ID string } }
		}
	}
	g.alice.Must(&settled, `query($g: ID!) { group(id: $g) { settlements { nodes { id } } } }`, "g", g.id)
	g.alice.Must(nil, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", settled.Group.Settlements.Nodes[0].ID)
	g.bob.Must(nil, `mutation($g: ID!) { removeMember(groupId: $g, userId: "103") }`, "g", g.id)
	var seen struct{ Group *struct{ ID string } }
	g.carol.Must(&seen, `query($g: ID!) { group(id: $g) { id } }`, "g", g.id)
	require.Nil(t, seen.Group)
	var left struct{ Node struct{ LeftAt *string } }
	g.alice.Must(&left, `query($id: ID!) { node(id: $id) { ... on Member { leftAt } } }`, "id", g.id+":103")
	require.NotNil(t, left.Node.LeftAt)

	// The group's setting may open removal to every member.
	g.alice.Must(nil, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, adminOnly: [ARCHIVE]}) { adminOnly } }`, "g", g.id)
	g.bob.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "102", role: MEMBER) { role } }`, "g", g.id)
	g.dan.Join(g.id)
	g.bob.Must(nil, `mutation($g: ID!) { removeMember(groupId: $g, userId: "104") }`, "g", g.id)
}

func TestAdminOnlySetting(t *testing.T) {
	g := newRoleGroup(t)
	var read struct{ Group struct{ AdminOnly []string } }
	g.carol.Must(&read, `query($g: ID!) { group(id: $g) { adminOnly } }`, "g", g.id)
	require.Equal(t, []string{"REMOVE_MEMBER", "ARCHIVE"}, read.Group.AdminOnly)

	// Today's defaults: any member renames, invites, adds placeholders.
	g.carol.Must(nil, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "Our flat"}) { id } }`, "g", g.id)
	g.carol.Must(nil, `mutation($g: ID!) { createInvite(groupId: $g) { id } }`, "g", g.id)
	// Changing the setting itself is an admin's.
	res := g.carol.Fails("FORBIDDEN", `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 2, adminOnly: []}) { id } }`, "g", g.id)
	require.Contains(t, res.Errors[0].Message, "change roles or what needs an admin")

	var set struct{ UpdateGroup struct{ AdminOnly []string } }
	g.bob.Must(&set, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 2, adminOnly: [INVITE, EDIT_GROUP, INVITE, CONNECT_CHAT]}) { adminOnly } }`, "g", g.id)
	require.Equal(t, []string{"EDIT_GROUP", "INVITE", "CONNECT_CHAT"}, set.UpdateGroup.AdminOnly)
	for _, op := range []struct{ query, what string }{
		{`mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 3, title: "Mine"}) { id } }`, "change the group's name or settings"},
		{`mutation($g: ID!) { createInvite(groupId: $g) { id } }`, "invite people"},
		{`mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Zed") { id } }`, "invite people"},
		{`mutation($g: ID!) { connectTelegramChat(groupId: $g, chatId: "-100123") { id } }`, "Telegram chat"},
		{`mutation($g: ID!) { disconnectTelegramChat(groupId: $g) { id } }`, "Telegram chat"},
	} {
		res := g.carol.Fails("FORBIDDEN", op.query, "g", g.id)
		require.Contains(t, res.Errors[0].Message, op.what)
	}
	// Money stays every member's.
	g.carol.Expense(g.id, "6.00", "103", "101")
	g.carol.Settle(g.id, "101", "1.00")

	// Nothing reserved: an empty list, kept as such.
	g.alice.Must(&set, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 3, adminOnly: []}) { adminOnly } }`, "g", g.id)
	require.Empty(t, set.UpdateGroup.AdminOnly)
	g.carol.Must(&read, `query($g: ID!) { group(id: $g) { adminOnly } }`, "g", g.id)
	require.Equal(t, []string{}, read.Group.AdminOnly)

	// createGroup takes the setting too.
	var created struct{ CreateGroup struct{ AdminOnly []string } }
	g.carol.Must(&created, `mutation { createGroup(input: {title: "Trip", currency: "EUR", adminOnly: [INVITE]}) { adminOnly } }`)
	require.Equal(t, []string{"INVITE"}, created.CreateGroup.AdminOnly)
}

// A group written before roles: its creator is its owner at read time, and
// the first change of a role (or migrate's KeepRoles) writes the roles down.
func TestRolesOfGroupsWrittenBeforeRoles(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("201", "Alice"), api.User("202", "Bob")
	group := alice.CreateGroup("Old")
	bob.Join(group)
	forgetRoles(t, api, group)
	var out struct{ Group struct{ ViewerRole string } }
	alice.Must(&out, `query($g: ID!) { group(id: $g) { viewerRole } }`, "g", group)
	require.Equal(t, "OWNER", out.Group.ViewerRole)
	bob.Fails("FORBIDDEN", `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "202", role: ADMIN) { role } }`, "g", group)
	alice.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "202", role: ADMIN) { role } }`, "g", group)
	g, err := api.Store.CurrentGroup(context.Background(), group)
	require.NoError(t, err)
	require.True(t, g.RolesKept)
	alice.Must(&out, `query($g: ID!) { group(id: $g) { viewerRole } }`, "g", group)
	require.Equal(t, "OWNER", out.Group.ViewerRole)

	// migrate: a group whose creator left gets its longest-standing member
	// as owner.
	other := alice.CreateGroup("Older")
	bob.Join(other)
	carol := api.User("203", "Carol")
	carol.Join(other)
	forgetRoles(t, api, other)
	_, err = api.Store.LeaveGroup(context.Background(), other, "201", "") // before roles, nothing stopped this
	require.NoError(t, err)
	wrote, err := api.Store.KeepRoles(context.Background(), other)
	require.NoError(t, err)
	require.True(t, wrote)
	bob.Must(&out, `query($g: ID!) { group(id: $g) { viewerRole } }`, "g", other)
	require.Equal(t, "OWNER", out.Group.ViewerRole)
	wrote, err = api.Store.KeepRoles(context.Background(), other)
	require.NoError(t, err)
	require.False(t, wrote)
}

// forgetRoles makes a group look written before roles: no rolesKept, no
// role on any membership.
func forgetRoles(t *testing.T, api *apitest.API, groupID string) {
	t.Helper()
	db, table := dynamotest.Client(t), api.Store.Table()
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "GROUP#" + groupID}, "SK": &types.AttributeValueMemberS{Value: sk}}
	}
	out, err := db.Query(t.Context(), &dynamodb.QueryInput{
		TableName: &table, KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "GROUP#" + groupID}},
	})
	require.NoError(t, err)
	for _, item := range out.Items {
		sk := item["SK"].(*types.AttributeValueMemberS).Value
		remove := ""
		switch {
		case sk == "METADATA":
			remove = "REMOVE rolesKept"
		case strings.HasPrefix(sk, "USER#"):
			remove = "REMOVE #role"
		default:
			continue
		}
		in := &dynamodb.UpdateItemInput{TableName: &table, Key: key(sk), UpdateExpression: aws.String(remove)}
		if strings.Contains(remove, "#role") {
			in.ExpressionAttributeNames = map[string]string{"#role": "role"}
		}
		_, err := db.UpdateItem(t.Context(), in)
		require.NoError(t, err)
	}
}

// TestRoleMatrix runs every operation roles decide as each kind of user:
// the owner, an admin, a member, a former member and a stranger. Each case
// starts from a fresh group, so one's success does not change another's.
func TestRoleMatrix(t *testing.T) {
	type want map[string]string // role -> "" (allowed) or the error code
	allowedTo := func(roles ...string) want {
		w := want{"owner": "FORBIDDEN", "admin": "FORBIDDEN", "member": "FORBIDDEN", "former": "NOT_FOUND", "stranger": "NOT_FOUND"}
		for _, r := range roles {
			w[r] = ""
		}
		return w
	}
	cases := []struct {
		name, query string
		want        want
	}{
		{"rename (any member by default)", `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "New"}) { id } }`,
			allowedTo("owner", "admin", "member")},
		{"change what needs an admin", `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, adminOnly: [INVITE]}) { id } }`,
			allowedTo("owner", "admin")},
		{"invite (any member by default)", `mutation($g: ID!) { createInvite(groupId: $g) { id } }`, allowedTo("owner", "admin", "member")},
		{"add a placeholder", `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Zed") { id } }`, allowedTo("owner", "admin", "member")},
		{"make an admin", `mutation($g: ID!, $u: ID!) { setMemberRole(groupId: $g, userId: $u, role: ADMIN) { id } }`, allowedTo("owner", "admin")},
		{"make an owner", `mutation($g: ID!, $u: ID!) { setMemberRole(groupId: $g, userId: $u, role: OWNER) { id } }`, allowedTo("owner")},
		{"hand the group over", `mutation($g: ID!, $u: ID!) { transferOwnership(groupId: $g, userId: $u) { id } }`, allowedTo("owner")},
		{"remove a member (admins by default)", `mutation($g: ID!, $u: ID!) { removeMember(groupId: $g, userId: $u) }`, allowedTo("owner", "admin")},
		{"archive (admins by default)", `mutation($g: ID!) { archiveGroup(id: $g) { id } }`, allowedTo("owner", "admin")},
		{"delete the group", `mutation($g: ID!) { deleteGroup(id: $g) }`, allowedTo("owner")},
		{"record an expense (everyone's)", `mutation($g: ID!, $u: ID!) { createExpense(input: {groupId: $g, amount: "3.00", description: "x", splitType: EQUAL, splits: [{userId: $u}]}) { id } }`,
			allowedTo("owner", "admin", "member")},
	}
	for _, c := range cases {
		for _, who := range []string{"owner", "admin", "member", "former", "stranger"} {
			t.Run(c.name+"/"+who, func(t *testing.T) {
				g := newRoleGroup(t)
				frank := g.api.User("106", "Frank") // the one acted upon: a member
				frank.Join(g.id)
				actor := map[string]*apitest.User{"owner": g.alice, "admin": g.bob, "member": g.carol, "former": g.dan, "stranger": g.eve}[who]
				vars := []any{"g", g.id}
				if strings.Contains(c.query, "$u") {
					vars = append(vars, "u", "106")
				}
				res := actor.Do(c.query, vars...)
				require.Equal(t, c.want[who], res.Code(), "%+v", res.Errors)
			})
		}
	}

	// Restoring a deleted group is the owner's too; former members and
	// strangers do not see it.
	for who, code := range map[string]string{"owner": "", "admin": "FORBIDDEN", "member": "FORBIDDEN", "former": "NOT_FOUND", "stranger": "NOT_FOUND"} {
		t.Run("restore the group/"+who, func(t *testing.T) {
			g := newRoleGroup(t)
			g.alice.Must(nil, `mutation($g: ID!) { deleteGroup(id: $g) }`, "g", g.id)
			actor := map[string]*apitest.User{"owner": g.alice, "admin": g.bob, "member": g.carol, "former": g.dan, "stranger": g.eve}[who]
			res := actor.Do(`mutation($g: ID!) { restoreGroup(id: $g) { id } }`, "g", g.id)
			require.Equal(t, code, res.Code(), "%+v", res.Errors)
		})
	}
}
