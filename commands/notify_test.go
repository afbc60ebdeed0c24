package commands

import (
	"bytes"
	"context"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// `notify` needs a bot token, and takes no argument but --replay.
func TestNotifyCommandRefuses(t *testing.T) {
	var out bytes.Buffer
	require.ErrorContains(t, call(t, notifyCommand, []string{"--now"}, &out), "--replay")
}

// `notify --replay` sends the dead letters again and removes them.
func TestNotifyReplayCommand(t *testing.T) {
	bot := telegramtest.New(t)
	table := servertest.LocalTable(t)
	t.Setenv("TELEGRAM_BOT_TOKEN", "123:token")
	t.Setenv("TELEGRAM_API_URL", bot.URL())
	s := store.New(dynamotest.Client(t), table, store.Options{})
	_, err := s.AddDeadLetter(context.Background(), store.DeadLetter{GroupID: "g1", ChatID: "-1001234567890", Text: "<b>Flat</b>\nlost", ButtonText: "Open in Fracti", ButtonURL: "https://t.me/b/a?startapp=g1", Reason: "503"})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, call(t, notifyCommand, []string{"--replay"}, &out))
	require.Contains(t, out.String(), "dead letters: 1 sent, 0 failed again")
	sent := bot.Sent()
	require.Len(t, sent, 1)
	require.EqualValues(t, -1001234567890, sent[0].ChatID)
	require.Equal(t, "<b>Flat</b>\nlost", sent[0].Text)
	left, err := s.ListDeadLetters(context.Background())
	require.NoError(t, err)
	require.Empty(t, left)
}
