package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/stretchr/testify/require"
)

// operation is one query or mutation, with what a non-member must get.
type operation struct {
	name  string
	query string
	vars  []any
	// nonMember is the error code for a signed-in non-member, or "" when the
	// answer is data that reveals nothing (checked by hidden).
	nonMember string
	hidden    func(t *testing.T, data string)
}

// everyOperation covers every root field of the schema against a group
// whose members are Alice, Bob and a placeholder, with an expense, a deleted
// expense, a settlement, an invite and an access token of Alice's.
func everyOperation(group, expense, deleted, settlement, invite, placeholder, token string) []operation {
	isNull := func(field string) func(t *testing.T, data string) {
		return func(t *testing.T, data string) { require.JSONEq(t, `{"`+field+`":null}`, data) }
	}
	return []operation{
		{name: "me", query: `{ me { id groups { nodes { id } } expensesPaid { nodes { id } } owes { nodes { id } } settlements { nodes { id } } activity { nodes { __typename } } } }`,
			hidden: func(t *testing.T, data string) {
				require.NotContains(t, data, group)
				require.NotContains(t, data, expense)
				require.NotContains(t, data, settlement)
			}},
		{name: "group", query: `query($id: ID!) { group(id: $id) { id } }`, vars: []any{"id", group}, hidden: isNull("group")},
		{name: "expense", query: `query($id: ID!) { expense(id: $id) { id history { version } } }`, vars: []any{"id", expense}, hidden: isNull("expense")},
		{name: "deleted expense", query: `query($id: ID!) { expense(id: $id) { id deletedAt } }`, vars: []any{"id", deleted}, hidden: isNull("expense")},
		{name: "node deleted expense", query: `query($id: ID!) { node(id: $id) { id } }`, vars: []any{"id", deleted}, hidden: isNull("node")},
		{name: "settlement", query: `query($id: ID!) { settlement(id: $id) { id } }`, vars: []any{"id", settlement}, hidden: isNull("settlement")},
		{name: "node group", query: `query($id: ID!) { node(id: $id) { id } }`, vars: []any{"id", group}, hidden: isNull("node")},
		{name: "node member", query: `query($id: ID!) { node(id: $id) { id } }`, vars: []any{"id", group + ":111"}, hidden: isNull("node")},
		{name: "node expense", query: `query($id: ID!) { node(id: $id) { id } }`, vars: []any{"id", expense}, hidden: isNull("node")},
		{name: "node settlement", query: `query($id: ID!) { node(id: $id) { id } }`, vars: []any{"id", settlement}, hidden: isNull("node")},
		{name: "node other user", query: `query($id: ID!) { node(id: $id) { id } }`, vars: []any{"id", "111"}, hidden: isNull("node")},
		{name: "createGroup", query: `mutation { createGroup(input: {title: "x", currency: "USD"}) { id } }`},
		{name: "importGroup into a group", query: `mutation($g: ID, $f: Upload!) { importGroup(input: {groupId: $g, format: SPLITWISE_CSV, file: $f, dryRun: false}) { expenses } }`,
			vars: []any{"g", group, "f", importFile}, nonMember: "NOT_FOUND"},
		{name: "importGroup into a new group", query: `mutation($f: Upload!) { importGroup(input: {title: "x", currency: "USD", format: SPLITWISE_CSV, file: $f}) { expenses group { id } } }`,
			vars: []any{"f", importFile}},
		{name: "me usage", query: `{ me { usage { day reads writes readLimit writeLimit resetsAt } } }`,
			hidden: func(t *testing.T, data string) { require.NotContains(t, data, group) }},
		{name: "group invites", query: `query($id: ID!) { group(id: $id) { invites { id secret } joinByIdAllowed } }`, vars: []any{"id", group}, hidden: isNull("group")},
		{name: "node placeholder", query: `query($id: ID!) { node(id: $id) { ... on Member { placeholder claimedBy { id } } } }`, vars: []any{"id", group + ":" + placeholder}, hidden: isNull("node")},
		{name: "joinGroup", query: `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "joinGroup with an unknown invite", query: `mutation { joinGroup(invite: "inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") { id } }`, nonMember: "NOT_FOUND"},
		{name: "createInvite", query: `mutation($g: ID!) { createInvite(groupId: $g) { secret } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "remindDebtors", query: `mutation($g: ID!) { remindDebtors(groupId: $g) { directMessages mentionedInChat } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "revokeInvite", query: `mutation($id: ID!) { revokeInvite(id: $id) }`, vars: []any{"id", invite}, nonMember: "NOT_FOUND"},
		{name: "addPlaceholderMember", query: `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Eve") { id } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "claimPlaceholder", query: `mutation($g: ID!, $p: ID!) { claimPlaceholder(groupId: $g, placeholderId: $p) { id } }`,
			vars: []any{"g", group, "p", placeholder}, nonMember: "NOT_FOUND"},
		{name: "updateWallet", query: `mutation($g: ID!) { updateWallet(groupId: $g, wallet: "") { id } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "createExpense", query: `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "1.00", description: "x", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "updateExpense", query: `mutation($id: ID!) { updateExpense(id: $id, input: {expectedVersion: 1, amount: "99.00"}) { id } }`,
			vars: []any{"id", expense}, nonMember: "NOT_FOUND"},
		{name: "expense conversion", query: `query($id: ID!) { expense(id: $id) { originalAmount originalCurrency rate rateSource rateDate } }`,
			vars: []any{"id", expense}, hidden: isNull("expense")},
		{name: "createExpense convertTo", query: `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "1.00", currency: "USD", convertTo: "EUR", rate: "0.9", description: "x", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "createExpense convertTo at the day's rate", query: `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "1.00", currency: "USD", convertTo: "EUR", description: "x", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "updateExpense convertTo", query: `mutation($id: ID!) { updateExpense(id: $id, input: {expectedVersion: 1, convertTo: "EUR", rate: "0.9"}) { id } }`,
			vars: []any{"id", expense}, nonMember: "NOT_FOUND"},
		{name: "group debts in", query: `query($id: ID!) { group(id: $id) { debts(in: "USD") { id amount parts { currency amount rate rateSource rateDate converted } } } }`,
			vars: []any{"id", group}, hidden: isNull("group")},
		{name: "settlement conversion", query: `query($id: ID!) { settlement(id: $id) { settlesCurrency settledAmount rate rateSource rateDate } }`,
			vars: []any{"id", settlement}, hidden: isNull("settlement")},
		{name: "createSettlement settlesCurrency", query: `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "1", currency: "TON", settlesCurrency: "USD", rate: "7.36"}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "createSettlement settlesCurrency at the day's rate", query: `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "1", currency: "TON", settlesCurrency: "USD"}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "deleteExpense", query: `mutation($id: ID!) { deleteExpense(id: $id) }`, vars: []any{"id", expense}, nonMember: "NOT_FOUND"},
		{name: "restoreExpense", query: `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, vars: []any{"id", deleted}, nonMember: "NOT_FOUND"},
		{name: "updateGroup", query: `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "Mine"}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "createSettlement", query: `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "1.00"}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "updateSettlement", query: `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`,
			vars: []any{"id", settlement}, nonMember: "NOT_FOUND"},
		{name: "me accessTokens", query: `{ me { accessTokens { id name scopes createdAt lastUsedAt expiresAt } } }`,
			hidden: func(t *testing.T, data string) { require.NotContains(t, data, token) }},
		{name: "createAccessToken", query: `mutation { createAccessToken(input: {name: "x", scopes: [READ]}) { token accessToken { id } } }`},
		{name: "group timeZone and spending", query: `query($id: ID!) { group(id: $id) { timeZone spending(from: "2026-01-01", to: "2026-12-31", by: MONTH) { start total byMember { member { userId } } } } }`,
			vars: []any{"id", group}, hidden: isNull("group")},
		{name: "expense spentOn", query: `query($id: ID!) { expense(id: $id) { spentOn } }`, vars: []any{"id", expense}, hidden: isNull("expense")},
		{name: "me spending", query: `{ me { spending(from: "2026-01-01", to: "2026-12-31") { start currency total count } } }`,
			hidden: func(t *testing.T, data string) { require.JSONEq(t, `{"me":{"spending":[]}}`, data) }},
		{name: "updateGroup timeZone", query: `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, timeZone: "Asia/Tokyo"}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "revokeAccessToken", query: `mutation($id: ID!) { revokeAccessToken(id: $id) }`, vars: []any{"id", token}, nonMember: "NOT_FOUND"},
		{name: "settlement paymentLink and verification", query: `query($id: ID!) { settlement(id: $id) { paymentLink verification { state checkedAt reason attempts } } }`,
			vars: []any{"id", settlement}, hidden: isNull("settlement")},
		{name: "submitSettlementTransaction", query: `mutation($id: ID!) { submitSettlementTransaction(id: $id, txHash: "` + strings.Repeat("ab", 32) + `") { id } }`,
			vars: []any{"id", settlement}, nonMember: "NOT_FOUND"},
		{name: "group roles", query: `query($id: ID!) { group(id: $id) { viewerRole adminOnly members { nodes { role } } } }`, vars: []any{"id", group}, hidden: isNull("group")},
		{name: "node member role", query: `query($id: ID!) { node(id: $id) { ... on Member { role } } }`, vars: []any{"id", group + ":111"}, hidden: isNull("node")},
		{name: "setMemberRole", query: `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "222", role: ADMIN) { id } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "transferOwnership", query: `mutation($g: ID!) { transferOwnership(groupId: $g, userId: "222") { id } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "removeMember", query: `mutation($g: ID!, $p: ID!) { removeMember(groupId: $g, userId: $p) }`, vars: []any{"g", group, "p", placeholder}, nonMember: "NOT_FOUND"},
		{name: "updateGroup adminOnly", query: `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, adminOnly: []}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "group exportUrls", query: `query($id: ID!) { group(id: $id) { exportUrls { json csv } } }`, vars: []any{"id", group}, hidden: isNull("group")},
	}
}

func TestEveryOperationChecksCredentialsAndMembership(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	expense := alice.Expense(group, "10.00", "111", "222")
	deleted := alice.Expense(group, "4.00", "111", "222")
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", deleted)
	settlement := bob.Settle(group, "111", "5.00")
	var setup struct {
		CreateInvite         struct{ ID string }
		AddPlaceholderMember struct{ UserID string }
	}
	alice.Must(&setup, `mutation($g: ID!) { createInvite(groupId: $g) { id } addPlaceholderMember(groupId: $g, name: "Carol") { userId } }`, "g", group)
	token := createAccessToken(t, alice, map[string]any{"name": "alice's", "scopes": []string{"READ", "WRITE"}}).AccessToken.ID
	series := recurringFixture(t, alice, group)
	var commented struct{ AddComment struct{ ID string } }
	bob.Must(&commented, `mutation($e: ID!) { addComment(expenseId: $e, body: "Thanks") { id } }`, "e", expense)
	var before json.RawMessage
	alice.Must(&before, everything, "g", group)

	credentials := apitest.BadCredentials()

	ops := everyOperation(group, expense, deleted, settlement, setup.CreateInvite.ID, setup.AddPlaceholderMember.UserID, token)
	ops = append(ops, recurringOperations(group, series)...)
	ops = append(ops, telegramOperations(group)...)
	ops = append(ops, commentOperations(expense, commented.AddComment.ID)...)
	for i, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			for name, header := range credentials {
				res := api.WithHeader(header).Do(op.query, op.vars...)
				require.Equal(t, "UNAUTHENTICATED", res.Code(), "%s: %+v", name, res.Errors)
				require.True(t, answersNothing(res.Data), "%s: nothing is answered: %s", name, res.Data)
			}

			mallory := api.User(fmt.Sprint(6000+i), "Mallory") // a fresh outsider: joinGroup makes one a member
			res := mallory.Do(op.query, op.vars...)
			switch {
			case op.nonMember != "":
				require.Equal(t, op.nonMember, res.Code(), "%+v", res.Errors)
				require.Contains(t, res.Errors[0].Message, "not found", "same answer as a missing id")
			case op.hidden != nil:
				require.Empty(t, res.Errors)
				op.hidden(t, string(res.Data))
			default: // open to anyone signed in: createGroup
				require.Empty(t, res.Errors)
			}
		})
	}

	// Nobody but the members changed anything: the group, its members,
	// invites, expenses (the deleted one included), settlements and activity
	// are as they were.
	var after json.RawMessage
	alice.Must(&after, everything, "g", group)
	require.JSONEq(t, string(before), string(after))
	var tokens struct {
		Me struct{ AccessTokens []struct{ ID string } }
	}
	alice.Must(&tokens, `{ me { accessTokens { id } } }`)
	require.Contains(t, tokens.Me.AccessTokens, struct{ ID string }{token}, "alice's token was not revoked")
}

// importFile is a small Splitwise export for the import rows.
var importFile = apitest.File{Name: "x.csv", Data: []byte("Date,Description,Category,Cost,Currency,A,B\n2026-03-01,X,General,2.00,USD,1.00,-1.00\n")}

// everything is what a group holds that only its members may change.
const everything = `query($g: ID!) { group(id: $g) { title version memberCount joinByIdAllowed chatId weeklyReminder adminOnly
	roles: members { nodes { userId role } }
	notificationSettings: members { nodes { notificationSettings { muted digest } } }
	members { nodes { userId placeholder claimedBy { id } } }
	invites { id uses }
	expenses { nodes { id version amount history { version } comments { nodes { id body deletedAt } } } }
	settlements { nodes { id status } }
	recurringExpenses { nodes { id version paused nextOn } }
	debts { from { userId } to { userId } amount }
	activity(first: 100) { nodes { type } } } }`

// answersNothing reports whether data is null or holds only nulls.
func answersNothing(data []byte) bool {
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		return false
	}
	for _, v := range fields {
		if v != nil {
			return false
		}
	}
	return true
}

func TestTelegramSignIn(t *testing.T) {
	api := apitest.New(t)
	carol := api.TelegramUser(333, "Carol", "White", "carol")
	id := carol.CreateGroup("From the Mini App")

	var out struct {
		Group struct {
			Members struct {
				Nodes []struct{ UserID, Name string }
			}
		}
	}
	carol.Must(&out, `query($g: ID!) { group(id: $g) { members { nodes { userId name } } } }`, "g", id)
	require.Equal(t, "333", out.Group.Members.Nodes[0].UserID)
	require.Equal(t, "Carol White", out.Group.Members.Nodes[0].Name)

	// The user is recorded on first use.
	p, err := api.Store.GetUserProfile(t.Context(), "333")
	require.NoError(t, err)
	require.Equal(t, "Carol White", p.Name)
	require.Equal(t, "carol", p.Username)
}

// TestTelegramSignInWithoutTheBotToken: a server with the bot's id and no
// token signs in the user of init data Telegram signed for that bot (at the
// time it was signed), and refuses it when a field or the bot differs.
func TestTelegramSignInWithoutTheBotToken(t *testing.T) {
	clock := apitest.WithClock(testclock.At(apitest.TelegramSignedAt))
	api := apitest.New(t, apitest.SignedByTelegram(), clock)
	vladislav := api.WithHeader("tma " + apitest.TelegramSignedInitData)

	var out struct {
		Me struct{ ID, Name, Username string }
	}
	vladislav.Must(&out, `{ me { id name username } }`)
	require.Equal(t, apitest.TelegramSignedUserID, out.Me.ID)
	require.Equal(t, "Vladislav + - ? / Kibenko", out.Me.Name)
	require.Equal(t, "vdkfrost", out.Me.Username)
	id := vladislav.CreateGroup("Signed by Telegram")
	require.NotEmpty(t, id)
	p, err := api.Store.GetUserProfile(t.Context(), apitest.TelegramSignedUserID)
	require.NoError(t, err)
	require.Equal(t, "Vladislav + - ? / Kibenko", p.Name)

	forged := strings.Replace(apitest.TelegramSignedInitData, "279058397", "279058398", 1)
	res := api.WithHeader("tma "+forged).Fails("UNAUTHENTICATED", `{ me { id } }`)
	require.Equal(t, "init data signature is invalid (was it signed by Telegram for this server's bot?)", res.Errors[0].Message)
	res = api.WithHeader("tma "+apitest.InitData(333, "Carol", "White", "carol", apitest.TelegramSignedAt)).Fails("UNAUTHENTICATED", `{ me { id } }`)
	require.Contains(t, res.Errors[0].Message, "signature is missing", "init data with a hash alone")

	otherBot := apitest.New(t, apitest.SignedByTelegram(), clock, func(c *httpapi.Config) { c.BotID++ })
	otherBot.WithHeader("tma "+apitest.TelegramSignedInitData).Fails("UNAUTHENTICATED", `{ me { id } }`)
	later := apitest.New(t, apitest.SignedByTelegram())
	res = later.WithHeader("tma "+apitest.TelegramSignedInitData).Fails("UNAUTHENTICATED", `{ me { id } }`)
	require.Equal(t, "init data expired: auth_date is older than 24h0m0s", res.Errors[0].Message, "today")
}

func TestIntrospectionNeedsNoCredentials(t *testing.T) {
	api := apitest.New(t)
	var out struct {
		Schema struct{ QueryType struct{ Name string } } `json:"__schema"`
	}
	api.WithHeader("").Must(&out, `{ __schema { queryType { name } } }`)
	require.Equal(t, "Query", out.Schema.QueryType.Name)
}
