package graph

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Reasons (extensions.reason) connectTelegramChat gives with FORBIDDEN or
// UNAVAILABLE, for the Mini App to say what to do.
const (
	ReasonBotNotInChat      = "BOT_NOT_IN_CHAT"
	ReasonNotInChat         = "NOT_IN_CHAT"
	ReasonBotNotConfigured  = "BOT_NOT_CONFIGURED"
	ReasonBotAPIUnreachable = "BOT_API_UNREACHABLE"
)

// botAPIRetryAfter is how many seconds a client waits before asking again
// when the Bot API could not be asked.
const botAPIRetryAfter = 5

// botAPITimeout bounds the two getChatMember calls of a connection, so that
// a slow Bot API holds no request for long.
const botAPITimeout = 10 * time.Second

// languagePattern is an IETF language tag as Telegram sends language_code
// ("en", "pt-br"); anything else is not kept.
var languagePattern = regexp.MustCompile(`^[a-zA-Z]{2,8}(-[a-zA-Z0-9]{1,8})*$`)

// languageCode is a language_code worth keeping, or "".
func languageCode(s string) string {
	if len(s) > 35 || !languagePattern.MatchString(s) {
		return ""
	}
	return s
}

// telegramChatID parses a chat id: a Telegram chat id is an int64 other
// than 0, written canonically (it is a key: "-0012" must not be a second
// name of "-12").
func telegramChatID(field, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n == 0 || strconv.FormatInt(n, 10) != s {
		return 0, badInput(field, `must be a Telegram chat id: an integer such as "-1001234567890"`)
	}
	return n, nil
}

func withReason(e *gqlerror.Error, reason string) *gqlerror.Error {
	e.Extensions["reason"] = reason
	return e
}

// botUnavailable is the error of a Bot API that cannot be asked now.
func botUnavailable(reason, msg string) *gqlerror.Error {
	e := withReason(codedError(CodeUnavailable, msg), reason)
	if reason == ReasonBotAPIUnreachable {
		e = withRetryAfter(e, botAPIRetryAfter)
	}
	return e
}

// checkChat asks the Bot API that the bot is in chatID and that userID is
// a member of it, and explains a refusal as an error the client can show.
func (r *Resolver) checkChat(ctx context.Context, chatID, userID int64) error {
	if r.Bot == nil || r.Bot.BotID() == 0 {
		return botUnavailable(ReasonBotNotConfigured, "this server has no Telegram bot configured, so chats cannot be connected")
	}
	ctx, cancel := context.WithTimeout(ctx, botAPITimeout)
	defer cancel()
	bot, err := r.Bot.GetChatMember(ctx, chatID, r.Bot.BotID())
	if err == nil && !bot.InChat() {
		err = &telegram.Error{Method: "getChatMember", Code: http.StatusForbidden, Description: "the bot is not in the chat"}
	}
	if err != nil {
		return r.botRefusal(ctx, err, ReasonBotNotInChat)
	}
	caller, err := r.Bot.GetChatMember(ctx, chatID, userID)
	if err != nil {
		return r.botRefusal(ctx, err, ReasonNotInChat)
	}
	if !caller.InChat() {
		return withReason(forbidden("you are not a member of that Telegram chat"), ReasonNotInChat)
	}
	return nil
}

// botRefusal explains a getChatMember failure: a refusal about the chat
// (400 chat or user not found, 403 the bot was removed) is FORBIDDEN with
// reason, since the bot cannot see the chat then; anything else means the
// Bot API cannot be asked now.
func (r *Resolver) botRefusal(ctx context.Context, err error, reason string) error {
	e, ok := telegram.AsError(err)
	switch {
	case ok && e.Code == http.StatusForbidden:
		return withReason(forbidden("the bot is not in that Telegram chat: add it to the chat first"), ReasonBotNotInChat)
	case ok && e.Code == http.StatusBadRequest && reason == ReasonBotNotInChat:
		return withReason(forbidden("the bot cannot see that Telegram chat: add it to the chat first"), ReasonBotNotInChat)
	case ok && e.Code == http.StatusBadRequest:
		return withReason(forbidden("you are not a member of that Telegram chat"), ReasonNotInChat)
	case ok && e.Code == http.StatusUnauthorized:
		r.log().ErrorContext(ctx, "the Bot API refused the bot token", "error", err)
		return botUnavailable(ReasonBotNotConfigured, "the server's Telegram bot is misconfigured")
	case errors.Is(err, context.Canceled):
		return err
	}
	r.log().WarnContext(ctx, "Bot API unreachable", "error", err)
	return botUnavailable(ReasonBotAPIUnreachable, "Telegram cannot be asked right now: try again in a moment")
}

// keepLanguage records the viewer's language_code on their membership of
// the group when their init data carries one that differs from the kept
// one. The membership is the one the request has loaded already, so an
// unchanged language costs no DynamoDB call.
func (r *Resolver) keepLanguage(ctx context.Context, groupID string) error {
	id, ok := auth.FromContext(ctx)
	lang := languageCode(id.LanguageCode)
	if !ok || id.Method != auth.MethodTelegram || lang == "" {
		return nil
	}
	m, err := loaders.Member(ctx, groupID, id.UserKey())
	if err != nil || !m.Active() || m.Language == lang {
		return err
	}
	if err := r.Store.SetMemberLanguage(ctx, groupID, id.UserKey(), lang); err != nil {
		// A preference, not the request's purpose: the next request tries again.
		r.log().WarnContext(ctx, "keeping the member's language", "error", err)
	}
	return nil
}

// notificationSettings is a member's settings as the API shows them.
func notificationSettings(m *store.Member) *model.NotificationSettings {
	return &model.NotificationSettings{Muted: m.Muted, Digest: m.Digest}
}

// createdGroupChat is the chat a new group is tied to ("" for none): a
// Telegram chat id checked with the Bot API exactly as connectTelegramChat
// checks it (the bot and the creator are in the chat), so that nobody ties
// a group to a chat they are not in.
func (r *Resolver) createdGroupChat(ctx context.Context, in *string) (string, error) {
	if in == nil || *in == "" {
		return "", nil
	}
	id, err := telegramChatID("input.chatId", *in)
	if err != nil {
		return "", err
	}
	viewer, err := strconv.ParseInt(viewerID(ctx), 10, 64)
	if err != nil {
		return "", err
	}
	if err := r.checkChat(ctx, id, viewer); err != nil {
		return "", err
	}
	return *in, nil
}
