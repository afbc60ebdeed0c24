package graph_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

// A supergroup's id, past 2^53: exact only as an int64.
const (
	tgChat  = int64(-1001234567890123)
	tgChatS = "-1001234567890123"
)

const connectChat = `mutation($g: ID!, $c: String!) { connectTelegramChat(groupId: $g, chatId: $c) { id chatId } }`

// telegramOperations are the authorization matrix's entries for the
// Telegram fields and mutations (everyOperation's).
func telegramOperations(group string) []operation {
	isNull := func(t *testing.T, data string) { require.JSONEq(t, `{"group":null}`, data) }
	return []operation{
		{name: "group chat and settings", query: `query($id: ID!) { group(id: $id) { chatId weeklyReminder members { nodes { notificationSettings { muted digest } } } } }`,
			vars: []any{"id", group}, hidden: isNull},
		{name: "connectTelegramChat", query: connectChat, vars: []any{"g", group, "c", tgChatS}, nonMember: "NOT_FOUND"},
		{name: "disconnectTelegramChat", query: `mutation($g: ID!) { disconnectTelegramChat(groupId: $g) { id } }`, vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "updateNotificationSettings", query: `mutation($g: ID!) { updateNotificationSettings(groupId: $g, input: {muted: true, digest: DAILY}) { muted } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "updateGroup weeklyReminder", query: `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, weeklyReminder: true}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
	}
}

type chatEvent struct {
	Type    string
	Actor   struct{ UserID string }
	Changes []struct {
		Field         string
		Before, After *string
	}
}

// chatState is the group's chat and its newest activity event.
func chatState(t *testing.T, u *apitest.User, group string) (*string, chatEvent) {
	t.Helper()
	var out struct {
		Group struct {
			ChatID   *string
			Activity struct{ Nodes []chatEvent }
		}
	}
	u.Must(&out, `query($g: ID!) { group(id: $g) { chatId activity(first: 1) { nodes { type actor { userId } changes { field before after } } } } }`, "g", group)
	return out.Group.ChatID, out.Group.Activity.Nodes[0]
}

func TestConnectTelegramChat(t *testing.T) {
	fake := telegramtest.New(t)
	api := apitest.New(t, apitest.Bot(fake.URL()))
	alice, bob, carol := api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	other := carol.CreateGroup("Other")

	for _, bad := range []string{"general", "-0012", "0", "+12", "-99999999999999999999"} {
		res := alice.Fails("BAD_USER_INPUT", connectChat, "g", group, "c", bad)
		require.Equal(t, "chatId", res.Field(), bad)
	}

	refusals := []struct {
		name   string
		setup  func()
		caller *apitest.User
		reason string
	}{
		{name: "unknown chat", setup: func() {}, caller: alice, reason: "BOT_NOT_IN_CHAT"},
		{name: "bot not in chat", setup: func() { fake.SetMember(tgChat, 111, telegram.StatusMember); fake.SetBotIn(tgChat, false) }, caller: alice, reason: "BOT_NOT_IN_CHAT"},
		{name: "caller not in chat", setup: func() { fake.SetBotIn(tgChat, true) }, caller: bob, reason: "NOT_IN_CHAT"},
		{name: "caller kicked", setup: func() { fake.SetMember(tgChat, 222, telegram.StatusKicked) }, caller: bob, reason: "NOT_IN_CHAT"},
		{name: "caller restricted, out of the chat", setup: func() { fake.SetRestricted(tgChat, 222, false) }, caller: bob, reason: "NOT_IN_CHAT"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			res := tc.caller.Fails("FORBIDDEN", connectChat, "g", group, "c", tgChatS)
			require.Equal(t, tc.reason, res.Errors[0].Extensions["reason"], "%+v", res.Errors)
			chat, _ := chatState(t, alice, group)
			require.Nil(t, chat)
		})
	}

	// A restricted member still in the chat may connect it.
	fake.SetRestricted(tgChat, 222, true)
	var out struct{ ConnectTelegramChat struct{ ID, ChatID string } }
	bob.Must(&out, connectChat, "g", group, "c", tgChatS)
	require.Equal(t, tgChatS, out.ConnectTelegramChat.ChatID)
	chat, ev := chatState(t, alice, group)
	require.Equal(t, tgChatS, *chat)
	require.Equal(t, "CHAT_CONNECTED", ev.Type)
	require.Equal(t, "222", ev.Actor.UserID)
	require.Equal(t, "chatId", ev.Changes[0].Field)
	require.Equal(t, tgChatS, *ev.Changes[0].After)
	// Again: nothing changes, Telegram is not even asked.
	alice.Must(nil, connectChat, "g", group, "c", tgChatS)
	_, ev = chatState(t, alice, group)
	require.Equal(t, "222", ev.Actor.UserID)

	// The chat is taken: the first group keeps it; the group has a chat.
	fake.SetMember(tgChat, 333, telegram.StatusCreator)
	carol.Fails("CONFLICT", connectChat, "g", other, "c", tgChatS)
	fake.SetMember(-42, 111, telegram.StatusAdministrator)
	alice.Fails("CONFLICT", connectChat, "g", group, "c", "-42")
	chat, _ = chatState(t, carol, other)
	require.Nil(t, chat)

	// Disconnected by a member: the chat is free for another group.
	var dis struct{ DisconnectTelegramChat struct{ ChatID *string } }
	alice.Must(&dis, `mutation($g: ID!) { disconnectTelegramChat(groupId: $g) { chatId } }`, "g", group)
	require.Nil(t, dis.DisconnectTelegramChat.ChatID)
	chat, ev = chatState(t, bob, group)
	require.Nil(t, chat)
	require.Equal(t, "CHAT_DISCONNECTED", ev.Type)
	require.Equal(t, "111", ev.Actor.UserID)
	require.Equal(t, tgChatS, *ev.Changes[0].Before)
	carol.Must(nil, connectChat, "g", other, "c", tgChatS)
	chat, _ = chatState(t, carol, other)
	require.Equal(t, tgChatS, *chat)
}

func TestConnectTelegramChatWithoutBotAPI(t *testing.T) {
	tests := []struct {
		name   string
		opts   []apitest.Option
		reason string
	}{
		{name: "no bot configured", reason: "BOT_NOT_CONFIGURED"},
		{name: "Bot API unreachable", opts: []apitest.Option{apitest.Bot("http://127.0.0.1:1")}, reason: "BOT_API_UNREACHABLE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := apitest.New(t, tc.opts...)
			alice := api.User("111", "Alice")
			group := alice.CreateGroup("Trip")
			res := alice.Fails("UNAVAILABLE", connectChat, "g", group, "c", tgChatS)
			require.Equal(t, tc.reason, res.Errors[0].Extensions["reason"])
			chat, _ := chatState(t, alice, group)
			require.Nil(t, chat)
		})
	}
}

func TestNotificationSettings(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	group := alice.CreateGroup("Trip")
	bob.Join(group)

	type settings struct {
		Muted  bool
		Digest string
	}
	update := func(u *apitest.User, input string) settings {
		var out struct{ UpdateNotificationSettings settings }
		u.Must(&out, `mutation($g: ID!) { updateNotificationSettings(groupId: $g, input: `+input+`) { muted digest } }`, "g", group)
		return out.UpdateNotificationSettings
	}
	require.Equal(t, settings{Muted: true, Digest: "NONE"}, update(alice, `{muted: true}`))
	require.Equal(t, settings{Muted: true, Digest: "WEEKLY"}, update(alice, `{digest: WEEKLY}`))
	require.Equal(t, settings{Muted: false, Digest: "WEEKLY"}, update(alice, `{muted: false}`))
	require.Equal(t, settings{Muted: false, Digest: "DAILY"}, update(bob, `{digest: DAILY}`))
	alice.Fails("GRAPHQL_VALIDATION_FAILED", `mutation($g: ID!) { updateNotificationSettings(groupId: $g, input: {digest: HOURLY}) { muted } }`, "g", group)

	// Each member sees their own settings only.
	var out struct {
		Group struct {
			Members struct {
				Nodes []struct {
					UserID               string
					NotificationSettings *settings
				}
			}
		}
	}
	for _, viewer := range []*apitest.User{alice, bob} {
		viewer.Must(&out, `query($g: ID!) { group(id: $g) { members { nodes { userId notificationSettings { muted digest } } } } }`, "g", group)
		require.Len(t, out.Group.Members.Nodes, 2)
		for _, m := range out.Group.Members.Nodes {
			if m.UserID != viewer.ID {
				require.Nil(t, m.NotificationSettings, "%s sees %s's settings", viewer.ID, m.UserID)
				continue
			}
			want := settings{Digest: "WEEKLY"}
			if viewer == bob {
				want = settings{Digest: "DAILY"}
			}
			require.Equal(t, &want, m.NotificationSettings)
		}
	}
}

func TestWeeklyReminder(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	var out struct {
		UpdateGroup struct {
			WeeklyReminder bool
			Version        int
		}
	}
	alice.Must(&out, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, weeklyReminder: true}) { weeklyReminder version } }`, "g", group)
	require.True(t, out.UpdateGroup.WeeklyReminder)
	require.Equal(t, 2, out.UpdateGroup.Version)
	var g struct{ Group struct{ WeeklyReminder bool } }
	alice.Must(&g, `query($g: ID!) { group(id: $g) { weeklyReminder } }`, "g", group)
	require.True(t, g.Group.WeeklyReminder)
}

func TestMemberLanguage(t *testing.T) {
	api := apitest.New(t)
	ru := api.TelegramUserLanguage(444, "Dasha", "ru")
	group := ru.CreateGroup("Дача")
	language := func() string {
		m, err := api.Store.GetMembers(t.Context(), []store.MemberKey{{GroupID: group, UserID: "444"}})
		require.NoError(t, err)
		return m[0].Language
	}
	require.Equal(t, "ru", language(), "kept at creation (joining)")

	// Unchanged: the group screen writes nothing.
	api.Calls.Reset()
	ru.Must(nil, `query($g: ID!) { group(id: $g) { title } }`, "g", group)
	require.Zero(t, api.Calls.ByOperation()["UpdateItem"])

	// Changed in Telegram: kept on the next request.
	es := api.TelegramUserLanguage(444, "Dasha", "es")
	es.Must(nil, `query($g: ID!) { group(id: $g) { title } }`, "g", group)
	require.Equal(t, "es", language())

	bob := api.TelegramUserLanguage(555, "Bob", "en")
	bob.Join(group)
	m, err := api.Store.GetMembers(t.Context(), []store.MemberKey{{GroupID: group, UserID: "555"}})
	require.NoError(t, err)
	require.Equal(t, "en", m[0].Language, "kept at joining")
}
