package main

import (
	"net/http"
	"time"

	"github.com/fracti/api/telegram"
)

// telegramTimeout bounds one Bot API call, so that a slow Telegram holds
// neither a request nor the notifier for long.
const telegramTimeout = 15 * time.Second

// telegramBot is the one Bot API client of the process (TELEGRAM_API_URL,
// the sign-in bot token), shared by the resolvers and the notifier; nil
// without a bot token.
func (c config) telegramBot() *telegram.Client {
	if c.BotToken == "" {
		return nil
	}
	return telegram.New(c.TelegramAPIURL, c.BotToken, &http.Client{Timeout: telegramTimeout})
}
