package wiring

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/telegram"
)

// telegramTimeout bounds one Bot API call, so that a slow Telegram holds
// neither a request nor the notifier for long.
const telegramTimeout = 15 * time.Second

// TelegramBot is the one Bot API client of the process, shared by the
// resolvers, the webhook and the notifier; nil without a bot token.
func TelegramBot(c config.Telegram) *telegram.Client {
	if c.BotToken == "" {
		return nil
	}
	return telegram.New(c.APIURL, c.BotToken, &http.Client{Timeout: telegramTimeout})
}

// inviteLinks names the bot and Mini App that invite links open.
func inviteLinks(c config.Telegram) graph.InviteLinks {
	return graph.InviteLinks{BotUsername: c.BotUsername, AppName: c.AppName}
}

// logSignIn says how this instance checks Mini App init data, and what it
// cannot do without the bot token.
func logSignIn(c config.Telegram, log *slog.Logger) {
	switch {
	case c.BotToken != "": // the hash, as ever: nothing to say
	case c.BotID > 0:
		log.Info("TELEGRAM_BOT_TOKEN is not set: Mini App sign-in (tma) checks Telegram's Ed25519 signature for TELEGRAM_BOT_ID; "+
			"connecting chats, reminders and the notifier need the token", "bot_id", c.BotID, "test_environment", c.TestEnvironment)
	default:
		log.Warn("neither TELEGRAM_BOT_TOKEN nor TELEGRAM_BOT_ID is set: Telegram Mini App sign-in (tma) is disabled; access tokens still work")
	}
}
