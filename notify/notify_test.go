package notify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

var ctx = context.Background()

const chat int64 = -1001234567890

// env is a table with its stream, a fake Bot API, and notifier instances,
// each with a store and a tailer of its own, as separate servers have.
type env struct {
	t      *testing.T
	table  string
	bot    *telegramtest.Server
	stores []*store.Store
	nots   []*notify.Notifier
	window time.Duration
	opts   []func(*notify.Options)
	// sent and refused count the messages of the group's setup (its
	// members joining), which the tests' checks leave out.
	sent, refused int
}

func newEnv(t *testing.T, instances int, window time.Duration, opts ...func(*notify.Options)) *env {
	t.Helper()
	e := &env{t: t, table: dynamotest.Table(t), bot: telegramtest.New(t), window: window, opts: opts}
	first := store.New(dynamotest.Client(t), e.table, store.Options{})
	_, err := first.EnableStream(ctx)
	require.NoError(t, err)
	e.stores = append(e.stores, first)
	for i := range instances {
		e.start(i == 0)
	}
	return e
}

// start runs one more notifier instance (on the first store, or on a store
// of its own) until the test ends.
func (e *env) start(onFirstStore bool) *notify.Notifier {
	e.t.Helper()
	s := e.stores[0]
	if !onFirstStore {
		s = store.New(dynamotest.Client(e.t), e.table, store.Options{})
		e.stores = append(e.stores, s)
	}
	o := notify.Options{
		Store: s, Bot: telegram.New(e.bot.URL(), "123:token", nil), Links: notify.Links{BotUsername: "FractiBot", AppName: "app"},
		Window: e.window, Retries: 3, BaseBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
	}
	for _, f := range e.opts {
		f(&o)
	}
	n := notify.New(o)
	streams, err := store.NewStreamsClient(ctx, store.ClientConfig{Endpoint: dynamotest.Endpoint(e.t)})
	require.NoError(e.t, err)
	tl := n.Tail(streams, s.StreamARN)
	tl.Poll, tl.Refresh = 50*time.Millisecond, time.Second
	e.run(tl.Run, n)
	e.nots = append(e.nots, n)
	return n
}

// run runs a notifier's reader until the returned stop or the test's end,
// and waits for the notifier's batches when it stops.
func (e *env) run(read func(context.Context), n interface{ Wait() }) (stop func()) {
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		read(runCtx)
		n.Wait()
	}()
	stop = func() {
		cancel()
		<-done
	}
	e.t.Cleanup(stop)
	return stop
}

var eur = money.MustCurrency("EUR")

func eurAmount(s string) money.Amount {
	a, err := money.ParseAmount(s, eur)
	if err != nil {
		panic(err)
	}
	return a
}

// members of the tests' group: Telegram ids past 2^32, languages en, ru, es.
const (
	ann   = "5000000001"
	boris = "5000000002"
	carla = "5000000003"
)

// group creates a group of Ann (en), Boris (ru) and Carla (es), connected
// to chat by Ann.
func (e *env) group() store.Group {
	e.t.Helper()
	s := e.stores[0]
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Flat <5>", Currency: eur, Creator: store.NewMember{UserID: ann, Name: "Ann", Language: "en"}})
	require.NoError(e.t, err)
	for _, m := range []store.NewMember{{UserID: boris, Name: "Boris", Language: "ru"}, {UserID: carla, Name: "Carla", Language: "es-419"}} {
		_, _, err := s.JoinGroup(ctx, g.ID, m)
		require.NoError(e.t, err)
	}
	g, err = s.ConnectTelegramChat(ctx, g.ID, fmt.Sprint(chat), ann, "en")
	require.NoError(e.t, err)
	if len(e.nots) > 0 {
		e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "Carla joined the group") }, "the joins told")
	}
	e.sent, e.refused = len(e.bot.Sent()), len(e.bot.Refused())
	return g
}

// sentNow lists the messages accepted since the group's setup.
func (e *env) sentNow() []telegramtest.Sent { return e.bot.Sent()[e.sent:] }

// refusedNow lists the messages refused since the group's setup.
func (e *env) refusedNow() []telegramtest.Sent { return e.bot.Refused()[e.refused:] }

// expense records that payer paid total for everyone in users, equally.
func (e *env) expense(s *store.Store, g store.Group, payer, total, what string, users ...string) store.Expense {
	e.t.Helper()
	parts, err := money.SplitEqual(eurAmount(total), len(users))
	require.NoError(e.t, err)
	x := store.Expense{GroupID: g.ID, PayerID: payer, Amount: eurAmount(total), Description: what, SplitType: store.SplitEqual, CreatedBy: payer}
	for i, u := range users {
		x.Splits = append(x.Splits, store.Split{UserID: u, Amount: parts[i]})
	}
	created, err := s.CreateExpense(ctx, g.Title, x, "")
	require.NoError(e.t, err)
	return created
}

// to lists the texts sent to chatID.
func (e *env) to(chatID int64) []string {
	var out []string
	for _, m := range e.sentNow() {
		if m.ChatID == chatID {
			out = append(out, m.Text)
		}
	}
	return out
}

func (e *env) eventually(cond func() bool, msg string) {
	e.t.Helper()
	require.Eventually(e.t, cond, 30*time.Second, 20*time.Millisecond, msg)
}

func userChat(id string) int64 {
	var n int64
	fmt.Sscan(id, &n)
	return n
}

// The proof: 50 expenses in 10 s written through two instances,
// each running a notifier on the stream, become a few group messages (one
// a window: the instances share each window through the table),
// within Telegram's limits, that name every expense exactly once; each
// member an expense names (not its author) hears of it once.
func TestFiftyExpensesThroughTwoInstances(t *testing.T) {
	e := newEnv(t, 2, 2*time.Second)
	g := e.group()
	start := time.Now()
	for i := range 50 {
		users := []string{ann} // Telegram lets one private chat have about a message a second: few shares
		if i < 5 {
			users = []string{ann, boris, carla}
		}
		e.expense(e.stores[i%2], g, ann, "3.00", fmt.Sprintf("item-%02d;", i), users...)
		time.Sleep(200 * time.Millisecond)
	}
	e.eventually(func() bool { return strings.Count(strings.Join(e.to(chat), "\n"), "item-") >= 50 }, "every expense in the chat")
	e.eventually(func() bool { return len(e.to(userChat(boris))) >= 5 && len(e.to(userChat(carla))) >= 5 }, "every share told")
	windows := int(time.Since(start)/(2*time.Second)) + 2 // a loaded machine writes the fifty more slowly
	time.Sleep(3 * time.Second)                           // a duplicate would come within a window
	all := strings.Join(e.to(chat), "\n")
	for i := range 50 {
		require.Equal(t, 1, strings.Count(all, fmt.Sprintf("item-%02d;", i)), "expense %d named once", i)
	}
	require.Len(t, e.to(userChat(boris)), 5)
	require.Len(t, e.to(userChat(carla)), 5)
	require.Empty(t, e.to(userChat(ann)), "the author hears nothing of their own expense")
	groupMessages := len(e.to(chat))
	// Both instances read every event; one owns each window.
	require.LessOrEqual(t, groupMessages, windows, "batched: at most one message per window, however many instances")
	require.Less(t, groupMessages, 25, "never one per expense")
	require.Empty(t, e.bot.LimitViolations())
	first := e.sentNow()[0]
	require.Equal(t, []telegram.Button{{Text: "Open in Fracti", URL: "https://t.me/FractiBot/app?startapp=" + g.ID}}, first.Buttons)
	require.Contains(t, e.to(chat)[0], "<b>Flat &lt;5&gt;</b>", "the title is escaped")
	require.Contains(t, e.to(userChat(boris))[0], "Ваша доля: <b>1.00 EUR</b>", "in Boris's language")
	require.Contains(t, e.to(userChat(carla))[0], "Tu parte: <b>1.00 EUR</b>", "es-419 is Spanish")
}

// What was written while no notifier ran is sent when one starts (it reads
// the stream from its start), and a notifier started again later sends
// nothing twice (the markers).
func TestRestartLosesNothingAndRepeatsNothing(t *testing.T) {
	e := newEnv(t, 0, 100*time.Millisecond)
	g := e.group()
	e.expense(e.stores[0], g, ann, "12.00", "written-while-down", ann, boris)
	e.start(true)
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "written-while-down") }, "sent once a notifier runs")
	e.eventually(func() bool { return len(e.to(userChat(boris))) == 1 }, "Boris's share sent")
	e.start(false) // a restart, or a second instance: it reads the same records
	e.expense(e.stores[0], g, ann, "1.00", "after-restart", ann)
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "after-restart") }, "the new one sent")
	time.Sleep(time.Second)
	all := strings.Join(e.to(chat), "\n")
	require.Equal(t, 1, strings.Count(all, "written-while-down"))
	require.Equal(t, 1, strings.Count(all, "after-restart"))
	require.Equal(t, 1, strings.Count(all, "Carla joined the group"))
	require.Len(t, e.to(userChat(boris)), 1)
}
