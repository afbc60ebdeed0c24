package httpapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// WebhookPath is where Telegram posts the bot's updates (setWebhook's url).
const WebhookPath = "/telegram/webhook"

// webhookSecretHeader carries setWebhook's secret_token on every update.
const webhookSecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// webhookTimeout bounds the handling of one update: Telegram waits for the
// answer before it sends the chat's next update.
const webhookTimeout = 10 * time.Second

// webhook handles the updates Telegram posts: the bot removed from a chat
// (my_chat_member: left, kicked, or restricted and no longer a member)
// disconnects the chat's group; /start in a private chat lets the bot write
// to the user, and the user blocking the bot (my_chat_member of their
// private chat: kicked) stops it until they unblock it or /start again; a group that became a supergroup (migrate_to_chat_id, or
// migrate_from_chat_id in the supergroup) keeps its group under the new id.
// Anything else is answered 200 and dropped, so that Telegram does not send
// it again; only a failure of the table is a 500, which Telegram retries.
type webhook struct {
	secret  string
	store   *store.Store
	log     *slog.Logger
	maxBody int64
}

func (h webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := r.Header.Get(webhookSecretHeader)
	if subtle.ConstantTimeCompare([]byte(got), []byte(h.secret)) != 1 {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
	if err != nil || int64(len(body)) > h.maxBody {
		// Nothing Fracti reads is this large: drop it rather than have it retried.
		h.log.WarnContext(r.Context(), "telegram webhook: update unreadable or too large", "bytes", len(body), "error", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	u, err := telegram.ParseUpdate(body)
	if err != nil {
		h.log.WarnContext(r.Context(), "telegram webhook: not an update", "error", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), webhookTimeout)
	defer cancel()
	if err := h.handle(ctx, u); err != nil {
		h.log.ErrorContext(ctx, "telegram webhook: update failed; Telegram will send it again", "update_id", u.UpdateID, "error", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// handle acts on one update; an error is a failure worth Telegram's retry.
func (h webhook) handle(ctx context.Context, u telegram.Update) error {
	if c := u.MyChatMember; c != nil && c.Chat.IsPrivate() {
		// The user blocked the bot (kicked) or unblocked it (member).
		return h.store.SetDirectMessages(ctx, strconv.FormatInt(c.Chat.ID, 10), !botRemoved(c.NewChatMember))
	}
	if c := u.MyChatMember; c != nil && botRemoved(c.NewChatMember) {
		chat := strconv.FormatInt(c.Chat.ID, 10)
		groupID, err := h.store.GroupOfChat(ctx, chat)
		if err != nil || groupID == "" {
			return err
		}
		_, err = h.store.DisconnectTelegramChat(ctx, groupID, chat, "")
		return ignoreOutcome(err)
	}
	m := u.Message
	if m == nil {
		return nil
	}
	switch {
	case m.MigrateToChatID != 0:
		return h.move(ctx, m.Chat.ID, m.MigrateToChatID)
	case m.MigrateFromChatID != 0:
		return h.move(ctx, m.MigrateFromChatID, m.Chat.ID)
	case m.Chat.IsPrivate() && m.From != nil && m.Command() == "/start":
		return h.store.SetDirectMessages(ctx, strconv.FormatInt(m.From.ID, 10), true)
	}
	return nil
}

// move follows a group chat to the supergroup it became.
func (h webhook) move(ctx context.Context, from, to int64) error {
	_, err := h.store.MoveTelegramChat(ctx, strconv.FormatInt(from, 10), strconv.FormatInt(to, 10))
	return ignoreOutcome(err)
}

// ignoreOutcome drops the store's refusals (the group is gone, the chat is
// another group's): sending the update again would not change them.
func ignoreOutcome(err error) error {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrConflict) {
		return nil
	}
	return err
}

// botRemoved reports whether the bot's new standing in a chat is out of it.
func botRemoved(m telegram.ChatMember) bool {
	switch m.Status {
	case telegram.StatusLeft, telegram.StatusKicked:
		return true
	case telegram.StatusRestricted:
		return !m.IsMember
	}
	return false
}
