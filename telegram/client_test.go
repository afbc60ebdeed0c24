package telegram_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

// Recorded Bot API answers. The refusals are as Telegram words them (the
// same texts appear in many public bots' tests and error tables, e.g.
// "Forbidden: bot was blocked by the user", "Bad Request: group chat was
// upgraded to a supergroup chat" with parameters.migrate_to_chat_id).
const (
	answerSent = `{"ok":true,"result":{"message_id":7,"from":{"id":7123456789,"is_bot":true,"first_name":"Fracti","username":"FractiBot"},` +
		`"chat":{"id":-1001234567890,"title":"Flat 5","type":"supergroup"},"date":1764000000,"text":"Ann paid 42.00 EUR"}}`
	answerMember         = `{"ok":true,"result":{"user":{"id":5000000001,"is_bot":false,"first_name":"Ann","username":"ann","language_code":"ru"},"status":"member"}}`
	answerRestrictedGone = `{"ok":true,"result":{"user":{"id":5000000001,"is_bot":false,"first_name":"Ann"},"status":"restricted","is_member":false,` +
		`"can_send_messages":false,"until_date":0}}`
	answerTooMany      = `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 30","parameters":{"retry_after":30}}`
	answerTooManyBare  = `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5"}`
	answerBlocked      = `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`
	answerNotStarted   = `{"ok":false,"error_code":403,"description":"Forbidden: bot can't initiate conversation with a user"}`
	answerKicked       = `{"ok":false,"error_code":403,"description":"Forbidden: bot was kicked from the supergroup chat"}`
	answerMigrated     = `{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1004487366646}}`
	answerChatNotFound = `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`
	answerUnauthorized = `{"ok":false,"error_code":401,"description":"Unauthorized"}`
	answerGatewayHTML  = `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`
)

// botAPI serves one answer with status for every call and records the
// requests' paths and bodies.
type botAPI struct {
	status int
	answer string
	paths  []string
	bodies []map[string]any
}

func (b *botAPI) start(t *testing.T) *telegram.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		_ = d.Decode(&body)
		b.paths, b.bodies = append(b.paths, r.URL.Path), append(b.bodies, body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(b.status)
		_, _ = io.WriteString(w, b.answer)
	}))
	t.Cleanup(srv.Close)
	return telegram.New(srv.URL+"/", "123:secret", srv.Client())
}

func TestSendMessage(t *testing.T) {
	api := &botAPI{status: 200, answer: answerSent}
	c := api.start(t)
	id, err := c.SendMessage(context.Background(), telegram.Outgoing{
		ChatID: -1001234567890, Text: "Ann paid <b>42.00 EUR</b>",
		Buttons: []telegram.Button{{Text: "Open", URL: "https://t.me/FractiBot/app?startapp=g1"}},
	})
	require.NoError(t, err)
	require.EqualValues(t, 7, id)
	require.Equal(t, []string{"/bot123:secret/sendMessage"}, api.paths)
	body := api.bodies[0]
	require.Equal(t, json.Number("-1001234567890"), body["chat_id"], "a 64-bit id goes out exactly")
	require.Equal(t, "HTML", body["parse_mode"])
	require.Equal(t, map[string]any{"inline_keyboard": []any{[]any{map[string]any{"text": "Open", "url": "https://t.me/FractiBot/app?startapp=g1"}}}}, body["reply_markup"])
}

func TestGetChatMember(t *testing.T) {
	for _, tc := range []struct {
		answer string
		in     bool
		status string
	}{
		{answerMember, true, telegram.StatusMember},
		{strings.Replace(answerMember, `"member"`, `"creator"`, 1), true, telegram.StatusCreator},
		{strings.Replace(answerMember, `"member"`, `"administrator"`, 1), true, telegram.StatusAdministrator},
		{strings.Replace(answerMember, `"member"`, `"left"`, 1), false, telegram.StatusLeft},
		{strings.Replace(answerMember, `"member"`, `"kicked"`, 1), false, telegram.StatusKicked},
		{answerRestrictedGone, false, telegram.StatusRestricted},
		{strings.Replace(answerRestrictedGone, `"is_member":false`, `"is_member":true`, 1), true, telegram.StatusRestricted},
	} {
		api := &botAPI{status: 200, answer: tc.answer}
		m, err := api.start(t).GetChatMember(context.Background(), -1001234567890, 5000000001)
		require.NoError(t, err)
		require.Equal(t, tc.status, m.Status)
		require.Equal(t, tc.in, m.InChat(), tc.answer)
		require.EqualValues(t, 5000000001, m.User.ID, "a user id past 2^32 is exact")
		require.Equal(t, json.Number("5000000001"), api.bodies[0]["user_id"])
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		answer     string
		code       int
		limited    bool
		retryAfter time.Duration
		forbidden  bool
		migratedTo int64
		temporary  bool
	}{
		{"429 with retry_after", 429, answerTooMany, 429, true, 30 * time.Second, false, 0, true},
		{"429 without parameters", 429, answerTooManyBare, 429, true, 0, false, 0, true},
		{"blocked", 403, answerBlocked, 403, false, 0, true, 0, false},
		{"never started", 403, answerNotStarted, 403, false, 0, true, 0, false},
		{"kicked from the group", 403, answerKicked, 403, false, 0, true, 0, false},
		{"group became a supergroup", 400, answerMigrated, 400, false, 0, false, -1004487366646, false},
		{"chat not found", 400, answerChatNotFound, 400, false, 0, false, 0, false},
		{"wrong token", 401, answerUnauthorized, 401, false, 0, false, 0, false},
		{"a proxy's error page", 502, answerGatewayHTML, 502, false, 0, false, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := (&botAPI{status: tc.status, answer: tc.answer}).start(t)
			_, err := c.SendMessage(context.Background(), telegram.Outgoing{ChatID: 1, Text: "x"})
			e, ok := telegram.AsError(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tc.code, e.Code)
			d, limited := telegram.RateLimited(err)
			require.Equal(t, tc.limited, limited)
			require.Equal(t, tc.retryAfter, d)
			require.Equal(t, tc.forbidden, telegram.Forbidden(err))
			to, migrated := telegram.MigratedTo(err)
			require.Equal(t, tc.migratedTo != 0, migrated)
			require.Equal(t, tc.migratedTo, to)
			require.Equal(t, tc.temporary, telegram.Temporary(err))
			require.NotContains(t, err.Error(), "secret", "the token never shows in an error")
		})
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there now
	_, err := telegram.New(srv.URL, "123:secret", nil).SendMessage(context.Background(), telegram.Outgoing{ChatID: 1, Text: "x"})
	require.Error(t, err)
	require.True(t, telegram.Temporary(err))
	require.NotContains(t, err.Error(), "secret", "the URL holds the token")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = telegram.New(srv.URL, "123:secret", nil).SendMessage(ctx, telegram.Outgoing{ChatID: 1, Text: "x"})
	require.True(t, errors.Is(err, context.Canceled))
	require.False(t, telegram.Temporary(err), "the caller gave up")
}

func TestEscapeHTML(t *testing.T) {
	require.Equal(t, "Tom &amp; Jerry &lt;b&gt;pizza&lt;/b&gt; \"5\"", telegram.EscapeHTML(`Tom & Jerry <b>pizza</b> "5"`))
}
