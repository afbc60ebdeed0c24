package notify_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
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
