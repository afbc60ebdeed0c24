package graph_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/telegramtest"
	"github.com/stretchr/testify/require"
)

const remindDebtors = `mutation($g: ID!) { remindDebtors(groupId: $g) { directMessages mentionedInChat queued } }`

// reminderReport is remindDebtors' answer.
type reminderReport struct{ DirectMessages, MentionedInChat, Queued int }

// bobOwesAlice makes a group where Bob owes Alice 5.00 USD, on an API whose
// reminders go through the Bot API at botURL.
func bobOwesAlice(t *testing.T, botURL string) (alice, bob *apitest.User, group string) {
	api := apitest.New(t, apitest.Reminders(botURL))
	alice, bob = api.User("111", "Alice"), api.User("222", "Bob")
	group = alice.CreateGroup("Trip")
	bob.Join(group)
	alice.Expense(group, "10.00", "111", "222")
	return alice, bob, group
}

// Bob owes Alice: he hears of it by a direct message; the group's second
// reminder that day is RATE_LIMITED with retryAfter.
func TestRemindDebtorsOnceADay(t *testing.T) {
	bot := telegramtest.New(t)
	alice, bob, group := bobOwesAlice(t, bot.URL())
	var out struct {
		RemindDebtors reminderReport
	}
	alice.Must(&out, remindDebtors, "g", group)
	require.Equal(t, 1, out.RemindDebtors.DirectMessages)
	require.Zero(t, out.RemindDebtors.Queued)
	require.Zero(t, out.RemindDebtors.MentionedInChat, "no chat connected")
	sent := bot.Sent()
	require.Len(t, sent, 1)
	require.EqualValues(t, 222, sent[0].ChatID)
	require.True(t, strings.HasSuffix(sent[0].Text, "• 5.00 USD to Alice"), sent[0].Text)

	res := bob.Do(remindDebtors, "g", group)
	require.Equal(t, "RATE_LIMITED", res.Code(), "%+v", res.Errors)
	retryAfter, _ := res.Errors[0].Extensions["retryAfter"].(float64)
	require.Positive(t, retryAfter)
	require.LessOrEqual(t, retryAfter, float64(24*60*60))
	require.Len(t, bot.Sent(), 1, "nothing sent twice")
}

func TestRemindDebtorsWithoutABot(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	require.Equal(t, "UNAVAILABLE", alice.Do(remindDebtors, "g", group).Code())
}

// With the Bot API unreachable the mutation answers at once: Bob's reminder
// is queued, and the answer says so.
func TestRemindDebtorsQueuesWhenTelegramIsUnreachable(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // a closed port: every connection refused
	alice, bob, group := bobOwesAlice(t, down.URL)
	var out struct {
		RemindDebtors reminderReport
	}
	alice.Must(&out, remindDebtors, "g", group)
	require.Equal(t, reminderReport{Queued: 1}, out.RemindDebtors)
	require.Equal(t, "RATE_LIMITED", bob.Do(remindDebtors, "g", group).Code(), "the queued reminder is the day's")
}
