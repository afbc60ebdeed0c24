package apitest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/telegram"
)

// BotID is the bot's user id: the number before ':' in BotToken.
const BotID = 123456

// Bot makes the server ask the Bot API at apiURL (a telegramtest server)
// with BotToken.
func Bot(apiURL string) Option {
	return func(c *httpapi.Config) { c.Bot = telegram.New(apiURL, BotToken, nil) }
}

// WebhookSecret turns on /telegram/webhook with the secret.
func WebhookSecret(secret string) Option {
	return func(c *httpapi.Config) { c.WebhookSecret = secret }
}

// TelegramUserLanguage signs in a user with Mini App init data whose user
// has the language_code lang.
func (a *API) TelegramUserLanguage(id int64, first, lang string) *User {
	data := signedInitData(map[string]any{"id": id, "first_name": first, "language_code": lang}, time.Now(), "")
	return &User{api: a, ID: strconv.FormatInt(id, 10), Name: first, header: "tma " + data}
}

// PostWebhook posts an update to /telegram/webhook with the secret header
// (none when secret is "") and returns the HTTP status.
func (a *API) PostWebhook(secret, update string) int {
	req := httptest.NewRequest(http.MethodPost, httpapi.WebhookPath, strings.NewReader(update))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	rec := httptest.NewRecorder()
	a.handler.ServeHTTP(rec, req)
	return rec.Code
}
