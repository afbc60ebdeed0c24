package apitest

import (
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/telegram"
)

// Reminders makes remindDebtors send through a notifier that asks the Bot
// API at apiURL (a telegramtest server).
func Reminders(apiURL string) Option {
	return func(c *httpapi.Config) {
		c.Reminders = notify.New(notify.Options{Store: c.Store, Bot: telegram.New(apiURL, BotToken, nil)})
	}
}
