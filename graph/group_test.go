package graph_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

const groupQuery = `query($id: ID!) { group(id: $id) {
	id chatId title currency createdAt memberCount
	members { nodes { id userId name username wallet avatarUrl joinedAt group { id } } }
} }`

type groupResult struct {
	Group *struct {
		ID, Title, Currency, CreatedAt string
		ChatID                         *string
		MemberCount                    int
		Members                        struct {
			Nodes []struct {
				ID, UserID, Name, JoinedAt  string
				Username, Wallet, AvatarURL *string
				Group                       struct{ ID string }
			}
		}
	}
}

func TestCreateGroup(t *testing.T) {
	fake := telegramtest.New(t)
	api := apitest.New(t, apitest.Bot(fake.URL()))
	alice := api.User("111", "Alice Smith")
	// A group tied to a chat at creation is checked with Telegram as
	// connectTelegramChat is: nobody ties a group to a chat they are not in.
	res := alice.Fails("FORBIDDEN", `mutation { createGroup(input: {title: "T", currency: "USD", chatId: "-1001234567890"}) { id } }`)
	require.Equal(t, "BOT_NOT_IN_CHAT", res.Errors[0].Extensions["reason"])
	fake.SetBotIn(-1001234567890, true)
	res = alice.Fails("FORBIDDEN", `mutation { createGroup(input: {title: "T", currency: "USD", chatId: "-1001234567890"}) { id } }`)
	require.Equal(t, "NOT_IN_CHAT", res.Errors[0].Extensions["reason"])
	fake.SetMember(-1001234567890, 111, telegram.StatusMember)

	var out struct {
		CreateGroup struct {
			ID, Title, Currency string
			ChatID              *string
			MemberCount         int
		}
	}
	alice.Must(&out, `mutation { createGroup(input: {title: "  Roommates ", currency: "ton", chatId: "-1001234567890"}) {
		id title currency chatId memberCount } }`)
	require.Equal(t, "Roommates", out.CreateGroup.Title)
	require.Equal(t, "TON", out.CreateGroup.Currency)
	require.Equal(t, "-1001234567890", *out.CreateGroup.ChatID)
	require.Equal(t, 1, out.CreateGroup.MemberCount)

	var g groupResult
	alice.Must(&g, groupQuery, "id", out.CreateGroup.ID)
	require.Len(t, g.Group.Members.Nodes, 1)
	m := g.Group.Members.Nodes[0]
	require.Equal(t, out.CreateGroup.ID+":111", m.ID)
	require.Equal(t, "111", m.UserID)
	require.Equal(t, "Alice Smith", m.Name)
	require.Nil(t, m.Username, "absent values are null, not empty strings")
	require.Nil(t, m.Wallet)
	require.Equal(t, out.CreateGroup.ID, m.Group.ID)
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, g.Group.CreatedAt)
}

func TestCreateGroupValidation(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	for _, tc := range []struct{ name, input, field string }{
		{"empty title", `{title: "  ", currency: "USD"}`, "input.title"},
		{"long title", `{title: "` + string(make([]byte, 0)) + longText(129) + `", currency: "USD"}`, "input.title"},
		{"unknown currency", `{title: "T", currency: "ABC"}`, "input.currency"},
		{"not a code", `{title: "T", currency: "dollars"}`, "input.currency"},
		{"bad chat id", `{title: "T", currency: "USD", chatId: "general"}`, "input.chatId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := alice.Fails("BAD_USER_INPUT", `mutation { createGroup(input: `+tc.input+`) { id } }`)
			require.Equal(t, tc.field, res.Field())
		})
	}
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}

func TestJoinGroupByID(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	var created struct{ CreateGroup struct{ ID string } }
	alice.Must(&created, `mutation { createGroup(input: {title: "Open house", currency: "USD", joinByIdAllowed: true}) { id } }`)
	id := created.CreateGroup.ID

	const join = `mutation($g: ID!) { joinGroup(groupId: $g) { id userId name group { memberCount } } }`
	var first, again struct {
		JoinGroup struct {
			ID, UserID, Name string
			Group            struct{ MemberCount int }
		}
	}
	bob.Must(&first, join, "g", id)
	require.Equal(t, id+":222", first.JoinGroup.ID)
	require.Equal(t, 2, first.JoinGroup.Group.MemberCount)

	// Joining again changes nothing.
	bob.Must(&again, join, "g", id)
	require.Equal(t, first, again)

	bob.Fails("NOT_FOUND", join, "g", "7d9c1f4e-0000-4000-8000-000000000000")
	bob.Fails("NOT_FOUND", join, "g", "not-a-uuid")
}

func TestGroupIsVisibleOnlyToMembers(t *testing.T) {
	api := apitest.New(t)
	alice, mallory := api.User("111", "Alice"), api.User("666", "Mallory")
	id := alice.CreateGroup("Trip")

	var g groupResult
	mallory.Must(&g, groupQuery, "id", id)
	require.Nil(t, g.Group, "another group answers like a missing one")
	mallory.Must(&g, groupQuery, "id", "7d9c1f4e-0000-4000-8000-000000000000")
	require.Nil(t, g.Group)
	alice.Must(&g, groupQuery, "id", id)
	require.NotNil(t, g.Group)
}

func TestGroupMember(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	id := alice.CreateGroup("Trip")
	bob.Join(id)

	var out struct {
		Group struct {
			Bob, Nobody, Junk *struct{ Name string }
		}
	}
	alice.Must(&out, `query($id: ID!) { group(id: $id) {
		bob: member(userId: "222") { name } nobody: member(userId: "333") { name } junk: member(userId: "x") { name } } }`, "id", id)
	require.Equal(t, "Bob", out.Group.Bob.Name)
	require.Nil(t, out.Group.Nobody)
	require.Nil(t, out.Group.Junk)
}

func TestUpdateWallet(t *testing.T) {
	api := apitest.New(t)
	alice, mallory := api.User("111", "Alice"), api.User("666", "Mallory")
	id := alice.CreateGroup("Trip")
	const wallet = "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL"
	const update = `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id wallet } }`

	var out struct{ UpdateWallet struct{ Wallet *string } }
	alice.Must(&out, update, "g", id, "w", wallet)
	require.Equal(t, wallet, *out.UpdateWallet.Wallet)

	var g groupResult
	alice.Must(&g, groupQuery, "id", id)
	require.Equal(t, wallet, *g.Group.Members.Nodes[0].Wallet)

	res := alice.Fails("BAD_USER_INPUT", update, "g", id, "w", "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jM")
	require.Equal(t, "wallet", res.Field())
	alice.Fails("BAD_USER_INPUT", update, "g", id, "w", "my wallet")

	alice.Must(&out, update, "g", id, "w", "")
	require.Nil(t, out.UpdateWallet.Wallet, "an empty string clears it")

	mallory.Fails("NOT_FOUND", update, "g", id, "w", wallet)
}
