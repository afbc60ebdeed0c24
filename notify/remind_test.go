package notify_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/stretchr/testify/require"
)

const dmitri = "5000000004"

// Each debtor hears what they owe and to whom; one Telegram refuses is
// mentioned in the chat; a muted one is left alone; a second reminder the
// same day is refused.
func TestRemindDebtors(t *testing.T) {
	e := newEnv(t, 1, 100*time.Millisecond)
	g := e.group()
	_, _, err := e.stores[0].JoinGroup(ctx, g.ID, store.NewMember{UserID: dmitri, Name: "Dmitri <3", Language: "ru"})
	require.NoError(t, err)
	yes := true
	_, err = e.stores[0].UpdateNotificationSettings(ctx, g.ID, dmitri, &yes, nil)
	require.NoError(t, err)
	e.bot.NeverStarted(userChat(carla))
	e.expense(e.stores[0], g, ann, "40.00", "rent", ann, boris, carla, dmitri)
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "rent") }, "the expense told")
	before := len(e.to(chat))

	report, err := e.nots[0].RemindDebtors(ctx, g.ID)
	require.NoError(t, err)
	require.Equal(t, notify.ReminderReport{DirectMessages: 1, MentionedInChat: 1}, report)
	borisDMs := e.to(userChat(boris))
	require.Equal(t, "<b>Flat &lt;5&gt;</b>: напоминаем, что вы должны\n• 10.00 EUR — Ann", borisDMs[len(borisDMs)-1])
	chatTexts := e.to(chat)
	require.Len(t, chatTexts, before+1)
	require.Equal(t, `🔔 A reminder for <a href="tg://user?id=5000000003">Carla</a>: you owe money in this group.`, chatTexts[before])
	require.Empty(t, e.to(userChat(dmitri)), "muted: no reminder")
	require.NotContains(t, chatTexts[before], dmitri, "muted: not mentioned")

	_, err = e.nots[0].RemindDebtors(ctx, g.ID)
	var limited *notify.RateLimitedError
	require.True(t, errors.As(err, &limited), "%v", err)
	require.Greater(t, limited.RetryAfter, time.Duration(0))
	require.LessOrEqual(t, limited.RetryAfter, 24*time.Hour)
}

// The weekly reminder goes to a group that asked for it, once a week
// however many instances run the job.
func TestWeeklyReminderOncePerWeek(t *testing.T) {
	e := newEnv(t, 2, 100*time.Millisecond)
	g := e.group()
	on := true
	_, err := e.stores[0].UpdateGroup(ctx, g, store.GroupChange{WeeklyReminder: &on}, ann)
	require.NoError(t, err)
	e.expense(e.stores[0], g, ann, "30.00", "power", ann, boris, carla)
	e.eventually(func() bool {
		ids, _ := e.stores[0].WeeklyReminderGroups(ctx)
		return len(ids) == 1 && strings.Contains(strings.Join(e.to(chat), ""), "power")
	}, "the group is on the weekly list")
	posted := 0
	for _, n := range e.nots {
		p, err := n.SendWeeklyReminders(ctx)
		require.NoError(t, err)
		posted += p
	}
	require.Equal(t, 1, posted)
	texts := e.to(chat)
	require.Equal(t, "📅 <b>Flat &lt;5&gt;</b>, this week's debts:\n• Boris → Ann: 10.00 EUR\n• Carla → Ann: 10.00 EUR", texts[len(texts)-1])
}

// remindTimeout is the tests' bound on remindDebtors' wait for Telegram.
const remindTimeout = time.Second

// With the Bot API unreachable (a closed port: refused at once; a server
// that never answers: until the deadline), remindDebtors answers within
// its one deadline, not per debtor: run under a context whose deadline is
// the bound and a margin, it does not reach it, Telegram is asked once, and
// the report says that both debtors' reminders are queued. While Telegram
// still refuses, the outbox's sender leaves them queued; once the Bot API
// answers again it delivers them, once: Boris's direct message (or, when he
// has blocked the bot meanwhile, a mention of him in the chat), and Carla
// (whom Telegram refused before) mentioned in the chat.
func TestRemindDebtorsWithTelegramUnreachable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	var asked atomic.Int32
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); hanging.Close() })

	for _, down := range []struct{ name, url string }{{"refused", closed.URL}, {"hanging", hanging.URL}} {
		t.Run(down.name, func(t *testing.T) {
			e := newEnv(t, 1, 100*time.Millisecond)
			g := e.group()
			e.bot.NeverStarted(userChat(carla))
			e.expense(e.stores[0], g, ann, "30.00", "rent", ann, boris, carla)
			e.eventually(func() bool {
				return strings.Contains(strings.Join(e.to(chat), ""), "rent") && len(e.to(userChat(boris))) == 1 && len(e.refusedNow()) == 1
			}, "the expense told, and Boris's share (Carla refused)")
			before := len(e.to(chat))
			unreachable := notify.New(notify.Options{Store: e.stores[0], Bot: telegram.New(down.url, "123:token", nil),
				RemindTimeout: remindTimeout, Retries: 5, BaseBackoff: time.Second})
			asked.Store(0)

			bounded, cancel := context.WithTimeout(ctx, remindTimeout+5*time.Second)
			defer cancel()
			report, err := unreachable.RemindDebtors(bounded, g.ID)
			require.NoError(t, err)
			require.NoError(t, bounded.Err(), "answered within the bound")
			require.Equal(t, notify.ReminderReport{Queued: 2}, report)
			if down.name == "hanging" {
				require.EqualValues(t, 1, asked.Load(), "one attempt for the whole request: no retries, no second debtor")
			}
			queued, err := e.stores[0].ListQueued(ctx)
			require.NoError(t, err)
			require.Len(t, queued, 2)

			// Telegram limits the bot still: the outbox's sender spends its
			// retries on the first and leaves it, and the rest, queued.
			e.bot.RateLimitNext(4, 0)
			sent, err := e.nots[0].SendQueued(ctx)
			require.Error(t, err)
			require.Zero(t, sent)
			queued, err = e.stores[0].ListQueued(ctx)
			require.NoError(t, err)
			require.Len(t, queued, 2)
			attempts := 0
			for _, l := range queued {
				attempts += l.Attempts
			}
			require.Equal(t, 2, attempts, "the request's try (one), and the sender's (the other), counted")

			// Telegram answers again: the outbox is sent once, however many
			// instances send it. In the second case Boris has blocked the
			// bot meanwhile: his reminder becomes a mention in the chat.
			blocked := down.name == "hanging"
			if blocked {
				e.bot.NeverStarted(userChat(boris))
			}
			sent, err = e.nots[0].SendQueued(ctx)
			require.NoError(t, err)
			require.Equal(t, 2, sent, "Boris's message, and Carla's mention")
			again, err := e.nots[0].SendQueued(ctx)
			require.NoError(t, err)
			require.Zero(t, again)
			carlaMentioned := `🔔 A reminder for <a href="tg://user?id=5000000003">Carla</a>: you owe money in this group.`
			if blocked {
				require.Empty(t, e.to(userChat(boris))[1:])
				require.ElementsMatch(t, []string{carlaMentioned,
					`🔔 A reminder for <a href="tg://user?id=5000000002">Boris</a>: you owe money in this group.`}, e.to(chat)[before:])
			} else {
				require.Equal(t, []string{"<b>Flat &lt;5&gt;</b>: напоминаем, что вы должны\n• 10.00 EUR — Ann"}, e.to(userChat(boris))[1:])
				require.Equal(t, []string{carlaMentioned}, e.to(chat)[before:])
			}
			left, err := e.stores[0].ListQueued(ctx)
			require.NoError(t, err)
			require.Empty(t, left)
			dead, err := e.stores[0].ListDeadLetters(ctx)
			require.NoError(t, err)
			require.Empty(t, dead)

			_, err = unreachable.RemindDebtors(ctx, g.ID)
			var limited *notify.RateLimitedError
			require.ErrorAs(t, err, &limited, "queued reminders count as the day's reminder")
		})
	}
}
