package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const webhookSecret = "s3cr3t-token_for-telegram"

// connectedGroup is a group of Alice's connected to chat (as the store does
// it for connectTelegramChat), on a server with the webhook on.
func connectedGroup(t *testing.T, chat string) (*apitest.API, string) {
	api := apitest.New(t, apitest.WebhookSecret(webhookSecret))
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	_, err := api.Store.ConnectTelegramChat(t.Context(), group, chat, "111", "en")
	require.NoError(t, err)
	return api, group
}

func chatOf(t *testing.T, api *apitest.API, group string) string {
	g, err := api.Store.CurrentGroup(t.Context(), group)
	require.NoError(t, err)
	return g.ChatID
}

// myChatMember is the update Telegram sends when the bot's standing in a chat changes.
func myChatMember(chat int64, status string, extra string) string {
	return fmt.Sprintf(`{"update_id": 10, "my_chat_member": {"chat": {"id": %d, "type": "supergroup", "title": "Trip"},
		"from": {"id": 111, "is_bot": false, "first_name": "Alice"}, "date": 1700000000,
		"old_chat_member": {"user": {"id": 123456, "is_bot": true, "first_name": "Fracti"}, "status": "administrator"},
		"new_chat_member": {"user": {"id": 123456, "is_bot": true, "first_name": "Fracti"}, "status": %q%s}}}`, chat, status, extra)
}

func TestWebhookSecret(t *testing.T) {
	const chat = "-1001234567890123"
	api, group := connectedGroup(t, chat)
	kicked := myChatMember(-1001234567890123, "kicked", "")
	for name, secret := range map[string]string{"missing": "", "wrong": "s3cr3t-token_for-telegraM", "prefix": "s3cr3t"} {
		require.Equal(t, http.StatusUnauthorized, api.PostWebhook(secret, kicked), name)
	}
	require.Equal(t, chat, chatOf(t, api, group), "nothing changed")
	g, err := api.Store.GroupOfChat(t.Context(), chat)
	require.NoError(t, err)
	require.Equal(t, group, g)

	// Off without a secret: the route does not exist.
	off := apitest.New(t)
	require.Equal(t, http.StatusNotFound, off.PostWebhook("", kicked))
	require.Equal(t, http.StatusNotFound, off.PostWebhook(webhookSecret, kicked))
}

func TestWebhookBotRemoved(t *testing.T) {
	tests := []struct {
		name, status, extra string
		disconnected        bool
	}{
		{name: "kicked", status: "kicked", disconnected: true},
		{name: "left", status: "left", disconnected: true},
		{name: "restricted, no longer a member", status: "restricted", extra: `, "is_member": false`, disconnected: true},
		{name: "restricted, still a member", status: "restricted", extra: `, "is_member": true`},
		{name: "made an administrator", status: "administrator"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const chat = "-1001234567890123"
			api, group := connectedGroup(t, chat)
			require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, myChatMember(-1001234567890123, tc.status, tc.extra)))
			if !tc.disconnected {
				require.Equal(t, chat, chatOf(t, api, group))
				return
			}
			require.Empty(t, chatOf(t, api, group))
			owner, err := api.Store.GroupOfChat(t.Context(), chat)
			require.NoError(t, err)
			require.Empty(t, owner)
			events, err := api.Store.ListEvents(t.Context(), group, store.PageArgs{First: 1})
			require.NoError(t, err)
			ev := events.Items[0]
			require.Equal(t, store.EventChatDisconnected, ev.Type)
			require.Equal(t, "111", ev.ActorID, "the member who had connected it")
			require.Equal(t, store.ReasonBotRemoved, *ev.Changes[1].After)
			// Telegram sends it again: nothing more happens.
			require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, myChatMember(-1001234567890123, tc.status, tc.extra)))
			again, err := api.Store.ListEvents(t.Context(), group, store.PageArgs{First: 1})
			require.NoError(t, err)
			require.Equal(t, ev.Seq, again.Items[0].Seq)
		})
	}
}

func TestWebhookStart(t *testing.T) {
	api := apitest.New(t, apitest.WebhookSecret(webhookSecret))
	ctx := t.Context()
	require.NoError(t, api.Store.SetDirectMessages(ctx, "9007199254740993", false)) // a 403 earlier
	start := `{"update_id": 11, "message": {"message_id": 1, "date": 1700000000, "text": "/start",
		"from": {"id": 9007199254740993, "is_bot": false, "first_name": "Big", "language_code": "es"},
		"chat": {"id": 9007199254740993, "type": "private"}}}`
	require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, start))
	allowed, err := api.Store.DirectMessagesAllowed(ctx, []string{"9007199254740993"})
	require.NoError(t, err)
	require.True(t, allowed["9007199254740993"])

	// Blocking the bot stops direct messages; unblocking allows them again.
	block := func(status string) string {
		return `{"update_id": 18, "my_chat_member": {"chat": {"id": 9007199254740993, "type": "private"},
			"from": {"id": 9007199254740993, "is_bot": false, "first_name": "Big"}, "date": 1700000000,
			"old_chat_member": {"user": {"id": 123456, "is_bot": true, "first_name": "Fracti"}, "status": "member"},
			"new_chat_member": {"user": {"id": 123456, "is_bot": true, "first_name": "Fracti"}, "status": "` + status + `"}}}`
	}
	for _, step := range []struct {
		status  string
		allowed bool
	}{{"kicked", false}, {"member", true}} {
		require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, block(step.status)))
		allowed, err = api.Store.DirectMessagesAllowed(ctx, []string{"9007199254740993"})
		require.NoError(t, err)
		require.Equal(t, step.allowed, allowed["9007199254740993"], step.status)
	}

	// /start in a group is not consent to private messages.
	require.NoError(t, api.Store.SetDirectMessages(ctx, "77", false))
	inGroup := `{"update_id": 12, "message": {"message_id": 2, "date": 1700000000, "text": "/start@FractiBot",
		"from": {"id": 77, "is_bot": false, "first_name": "G"}, "chat": {"id": -100500, "type": "supergroup"}}}`
	require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, inGroup))
	allowed, err = api.Store.DirectMessagesAllowed(ctx, []string{"77"})
	require.NoError(t, err)
	require.False(t, allowed["77"])
}

func TestWebhookMigration(t *testing.T) {
	for name, update := range map[string]string{
		"migrate_to_chat_id in the old group": `{"update_id": 13, "message": {"message_id": 3, "date": 1700000000,
			"chat": {"id": -4000000001, "type": "group"}, "migrate_to_chat_id": -1009999999999}}`,
		"migrate_from_chat_id in the supergroup": `{"update_id": 14, "message": {"message_id": 1, "date": 1700000000,
			"chat": {"id": -1009999999999, "type": "supergroup"}, "migrate_from_chat_id": -4000000001}}`,
	} {
		t.Run(name, func(t *testing.T) {
			api, group := connectedGroup(t, "-4000000001")
			require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, update))
			require.Equal(t, "-1009999999999", chatOf(t, api, group))
			owner, err := api.Store.GroupOfChat(t.Context(), "-1009999999999")
			require.NoError(t, err)
			require.Equal(t, group, owner)
			// Both updates arrive: the second finds it moved.
			require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, update))
			require.Equal(t, "-1009999999999", chatOf(t, api, group))
		})
	}
}

func TestWebhookUpdatesItCannotUse(t *testing.T) {
	api, group := connectedGroup(t, "-100777")
	for name, body := range map[string]string{
		"not JSON":          `<html>`,
		"an edited message": `{"update_id": 15, "edited_message": {"message_id": 1, "date": 1, "chat": {"id": -100777, "type": "supergroup"}}}`,
		"a plain message":   `{"update_id": 16, "message": {"message_id": 5, "date": 1, "text": "hi", "chat": {"id": -100777, "type": "supergroup"}}}`,
		"an unknown chat":   myChatMember(-100778, "kicked", ""),
		"too large":         `{"update_id": 17, "message": {"text": "` + strings.Repeat("x", 2<<20) + `"}}`,
	} {
		require.Equal(t, http.StatusOK, api.PostWebhook(webhookSecret, body), name)
	}
	require.Equal(t, "-100777", chatOf(t, api, group))
}
