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

// Init data that Telegram signed with its production Ed25519 key for the
// bot TelegramSignedBotID, at TelegramSignedAt, for the user
// TelegramSignedUserID: the example of github.com/Telegram-Mini-Apps/init-data-golang's
// README.md at commit f7a67907f5c0b6b50d4032ca1e4e47f032e40645
// (auth/telegram_test.go checks it field by field).
const (
	TelegramSignedBotID    = 7342037359
	TelegramSignedUserID   = "279058397"
	TelegramSignedInitData = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D" +
		"&chat_instance=8134722200314281151&chat_type=private&auth_date=1733509682" +
		"&signature=TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau-X7oNNLNBM72APCpi_RKiUlBvcqo5L-LAxIc3dnTzcZX_PDg" +
		"&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73"
)

// TelegramSignedAt is when TelegramSignedInitData was signed.
var TelegramSignedAt = time.Unix(1733509682, 0)

// SignedByTelegram makes the server check init data as an instance without
// the bot token does: by Telegram's signature for TelegramSignedBotID.
func SignedByTelegram() Option {
	return func(c *httpapi.Config) { c.BotToken, c.BotID = "", TelegramSignedBotID }
}

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
