package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestConfigNotify: the notifier is off by default, with a 20 s batch
// window, a 1 h bound on an event's age and jobs every 5 minutes; each may
// be set, and bad values stop the server.
func TestConfigNotify(t *testing.T) {
	for _, name := range []string{"NOTIFY", "NOTIFY_BATCH_WINDOW", "NOTIFY_MAX_AGE", "NOTIFY_JOB_INTERVAL"} {
		t.Setenv(name, "")
	}
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, notifyConfig{On: false, Window: 20 * time.Second, MaxAge: time.Hour, JobInterval: 5 * time.Minute}, c.Notify)

	t.Setenv("NOTIFY", "true")
	t.Setenv("NOTIFY_BATCH_WINDOW", "5s")
	t.Setenv("NOTIFY_MAX_AGE", "30m")
	t.Setenv("NOTIFY_JOB_INTERVAL", "1m")
	c, err = loadConfig()
	require.NoError(t, err)
	require.Equal(t, notifyConfig{On: true, Window: 5 * time.Second, MaxAge: 30 * time.Minute, JobInterval: time.Minute}, c.Notify)

	for name, bad := range map[string]string{"NOTIFY": "yes please", "NOTIFY_BATCH_WINDOW": "soon", "NOTIFY_MAX_AGE": "-1h", "NOTIFY_JOB_INTERVAL": "0s"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, bad)
			_, err := loadConfig()
			require.ErrorContains(t, err, name)
		})
	}
}

// `notify` needs a bot token, and takes no argument but --replay.
func TestNotifyCommandRefuses(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	require.ErrorContains(t, notifyCommand(context.Background(), config{}, []string{"--now"}, log, &out), "--replay")
}

// `notify --replay` sends the dead letters again and removes them.
func TestNotifyReplayCommand(t *testing.T) {
	bot := telegramtest.New(t)
	cfg := config{Endpoint: dynamotest.Endpoint(t), Table: dynamotest.Table(t), BotToken: "123:token", TelegramAPIURL: bot.URL()}
	s := store.New(dynamotest.Client(t), cfg.Table, store.Options{})
	_, err := s.AddDeadLetter(context.Background(), store.DeadLetter{GroupID: "g1", ChatID: "-1001234567890", Text: "<b>Flat</b>\nlost", ButtonText: "Open in Fracti", ButtonURL: "https://t.me/b/a?startapp=g1", Reason: "503"})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, notifyCommand(context.Background(), cfg, []string{"--replay"}, slog.New(slog.NewTextHandler(&out, nil)), &out))
	require.Contains(t, out.String(), "dead letters: 1 sent, 0 failed again")
	sent := bot.Sent()
	require.Len(t, sent, 1)
	require.EqualValues(t, -1001234567890, sent[0].ChatID)
	require.Equal(t, "<b>Flat</b>\nlost", sent[0].Text)
	left, err := s.ListDeadLetters(context.Background())
	require.NoError(t, err)
	require.Empty(t, left)
}
