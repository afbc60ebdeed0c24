package systemtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestNotifierWindowOwnerKilled: three server processes run the notifier
// (NOTIFY=true) on one table and one fake Bot API. Two expenses written
// through two instances join the group's batch window; the instance that
// owns it is SIGKILLed before the window ends. Another instance takes the
// stream's lease over, reads the events again and, when the dead owner's
// claim ends, takes the window over: the chat gets one message naming
// both expenses, once; and a later expense is told in a message of its own.
func TestNotifierWindowOwnerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three server processes")
	}
	ctx := context.Background()
	table := servertest.LocalTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{})
	_, err := s.EnableStream(ctx)
	require.NoError(t, err)
	bot := telegramtest.New(t)
	bin := servertest.BuildServer(t)
	const window = 3 * time.Second
	instances := make([]servertest.Instance, 3)
	for i := range instances {
		instances[i] = servertest.StartInstance(t, bin, table, "NOTIFY=true", "NOTIFY_BATCH_WINDOW="+window.String(),
			"TELEGRAM_BOT_TOKEN=123:token", "TELEGRAM_API_URL="+bot.URL(), "LEASE_TIMEOUT=2s")
	}

	const ann, chat = "7001", int64(-1009876543210)
	token := servertest.UserToken(t, s, ann, "Ann")
	var created struct{ CreateGroup struct{ ID string } }
	servertest.GQL(t, instances[0].URL, token, &created, `mutation { createGroup(input: {title: "Three", currency: "USD"}) { id } }`, nil)
	g := created.CreateGroup.ID
	_, err = s.ConnectTelegramChat(ctx, g, strconv.FormatInt(chat, 10), ann, "en")
	require.NoError(t, err)
	expense := func(inst servertest.Instance, what string) {
		servertest.GQL(t, inst.URL, token, nil, `mutation($g: ID!, $d: String!) { createExpense(input: {groupId: $g,
			amount: "5.00", description: $d, splitType: EQUAL, splits: [{userId: "7001"}]}) { id } }`, map[string]any{"g": g, "d": what})
	}
	toChat := func() []string {
		var out []string
		for _, m := range bot.Sent() {
			if m.ChatID == chat {
				out = append(out, m.Text)
			}
		}
		return out
	}

	expense(instances[0], "first-expense;")
	expense(instances[1], "second-expense;")
	var w store.BatchWindow
	require.Eventually(t, func() bool {
		var found bool
		w, found, err = s.Window(ctx, g, "chat")
		return err == nil && found && !w.Closed && len(w.Seqs) == 2
	}, 10*time.Second, 20*time.Millisecond, "both expenses in one open window")
	victim := -1
	for i, inst := range instances {
		if strings.Contains(w.Owner, "/"+strconv.Itoa(inst.PID)+"/") {
			victim = i
		}
	}
	require.NotEqual(t, -1, victim, "the window's owner is one of the instances: %q", w.Owner)
	require.Less(t, time.Since(w.Opened), window, "killed before its window ends")
	require.NoError(t, syscall.Kill(instances[victim].PID, syscall.SIGKILL))
	require.Empty(t, toChat(), "nothing sent before the kill")

	require.Eventually(t, func() bool { return len(toChat()) > 0 }, 60*time.Second, 50*time.Millisecond, "told by a survivor")
	time.Sleep(2 * time.Second) // a second message would come by now
	texts := toChat()
	require.Len(t, texts, 1, "%q", texts)
	for _, name := range []string{"first-expense;", "second-expense;"} {
		require.Equal(t, 1, strings.Count(texts[0], name), name)
	}
	after, _, err := s.Window(ctx, g, "chat")
	require.NoError(t, err)
	require.True(t, after.Closed)

	alive := instances[(victim+1)%3]
	expense(alive, "third-expense;")
	require.Eventually(t, func() bool { return len(toChat()) == 2 }, 30*time.Second, 50*time.Millisecond, "the next window told")
	require.Equal(t, 0, strings.Count(toChat()[1], "first-expense;"), fmt.Sprintf("%q", toChat()))
	require.Contains(t, toChat()[1], "third-expense;")
}
