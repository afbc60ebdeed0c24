package wiring

import (
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
