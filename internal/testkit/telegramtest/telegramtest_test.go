package telegramtest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

const (
	botToken = "777000111:secret"
	botID    = 777000111
	chat     = int64(-1001234567890123) // past 2^53: must survive as an int64
	user     = int64(9007199254740993)
)

func TestGetChatMember(t *testing.T) {
	ctx := context.Background()
	fake := telegramtest.New(t)
	c := telegram.New(fake.URL(), botToken, nil)

	_, err := c.GetChatMember(ctx, chat, user)
	e, ok := telegram.AsError(err)
	require.True(t, ok, err)
	require.Equal(t, http.StatusBadRequest, e.Code)
	require.Equal(t, "Bad Request: chat not found", e.Description)

	fake.SetMember(chat, user, telegram.StatusAdministrator)
	m, err := c.GetChatMember(ctx, chat, user)
	require.NoError(t, err)
	require.Equal(t, user, m.User.ID)
	require.True(t, m.InChat())
	bot, err := c.GetChatMember(ctx, chat, botID)
	require.NoError(t, err)
	require.True(t, bot.InChat())
	other, err := c.GetChatMember(ctx, chat, 5)
	require.NoError(t, err)
	require.Equal(t, telegram.StatusLeft, other.Status)

	fake.SetRestricted(chat, 6, false)
	r, err := c.GetChatMember(ctx, chat, 6)
	require.NoError(t, err)
	require.False(t, r.InChat())
	fake.SetMember(chat, 7, telegram.StatusRestricted)
	r, err = c.GetChatMember(ctx, chat, 7)
	require.NoError(t, err)
	require.True(t, r.InChat())

	fake.SetBotIn(chat, false)
	_, err = c.GetChatMember(ctx, chat, botID)
	require.True(t, telegram.Forbidden(err), err)
}

func TestSendMessage(t *testing.T) {
	ctx := context.Background()
	fake := telegramtest.New(t)
	c := telegram.New(fake.URL(), botToken, nil)
	buttons := []telegram.Button{{Text: "Open", URL: "https://t.me/bot/app?startapp=g1"}}

	_, err := c.SendMessage(ctx, telegram.Outgoing{ChatID: chat, Text: "<b>hi</b>", Buttons: buttons})
	require.NoError(t, err)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: user, Text: "private"})
	require.NoError(t, err)

	fake.NeverStarted(user)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: user, Text: "refused"})
	require.True(t, telegram.Forbidden(err), err)

	fake.Migrate(-42, -1009)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: -42, Text: "moved"})
	to, ok := telegram.MigratedTo(err)
	require.True(t, ok, err)
	require.Equal(t, int64(-1009), to)

	fake.RateLimitNext(2, 3)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: chat, Text: "429"})
	after, ok := telegram.RateLimited(err)
	require.True(t, ok, err)
	require.Equal(t, 3*time.Second, after)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: chat, Text: "429"})
	require.True(t, telegram.Temporary(err))
	fake.RateLimitNext(1, 0)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: chat, Text: "429 bare"})
	after, ok = telegram.RateLimited(err)
	require.True(t, ok, err)
	require.Zero(t, after)

	fake.SetBotIn(chat, false)
	_, err = c.SendMessage(ctx, telegram.Outgoing{ChatID: chat, Text: "gone"})
	require.True(t, telegram.Forbidden(err), err)

	sent := fake.Sent()
	require.Len(t, sent, 2)
	require.Equal(t, chat, sent[0].ChatID)
	require.Equal(t, "<b>hi</b>", sent[0].Text)
	require.Equal(t, buttons, sent[0].Buttons)
	require.Equal(t, user, sent[1].ChatID)
	require.Len(t, fake.Refused(), 6)
	require.Empty(t, fake.LimitViolations())
}

func TestLimitViolations(t *testing.T) {
	ctx := context.Background()
	fake := telegramtest.New(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fake.SetNow(func() time.Time { return now })
	c := telegram.New(fake.URL(), botToken, nil)
	for i := range 21 {
		now = now.Add(2 * time.Second)
		_, err := c.SendMessage(ctx, telegram.Outgoing{ChatID: chat, Text: "m"})
		require.NoError(t, err, i)
	}
	require.Len(t, fake.LimitViolations(), 1, "the 21st message within a minute")
}
