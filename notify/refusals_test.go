package notify_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A 429 delays the message by its retry_after, and nothing is lost.
func TestRateLimitedSendWaitsItsRetryAfter(t *testing.T) {
	e := newEnv(t, 1, 100*time.Millisecond)
	g := e.group()
	e.bot.RateLimitNext(1, 1)
	e.expense(e.stores[0], g, ann, "9.99", "pizza", ann)
	e.eventually(func() bool { return len(e.to(chat)) == 1 }, "sent after the 429")
	refused, sent := e.refusedNow(), e.sentNow()
	require.Len(t, refused, 1)
	require.GreaterOrEqual(t, sent[0].At.Sub(refused[0].At), time.Second, "not before retry_after")
	require.Contains(t, sent[0].Text, "pizza: 9.99 EUR")
}

// A member who never started the bot is not retried, and not tried again
// until they /start it; a group chat the bot left is disconnected.
func TestForbiddenChats(t *testing.T) {
	e := newEnv(t, 1, 100*time.Millisecond)
	g := e.group()
	e.bot.NeverStarted(userChat(boris))
	e.expense(e.stores[0], g, ann, "4.00", "taxi", ann, boris)
	e.eventually(func() bool { return len(e.to(chat)) == 1 && len(e.refusedNow()) == 1 }, "the chat told, Boris refused")
	e.eventually(func() bool {
		allowed, err := e.stores[0].DirectMessagesAllowed(ctx, []string{boris})
		return err == nil && !allowed[boris]
	}, "no direct messages to Boris from now on")
	e.expense(e.stores[0], g, ann, "6.00", "bus", ann, boris)
	e.eventually(func() bool { return len(e.to(chat)) == 2 }, "the second expense told")
	time.Sleep(300 * time.Millisecond)
	require.Len(t, e.refusedNow(), 1, "no second try at Boris")

	e.bot.SetBotIn(chat, false)
	e.expense(e.stores[0], g, ann, "7.00", "train", ann)
	e.eventually(func() bool {
		gs, err := e.stores[0].GetGroups(ctx, []string{g.ID})
		return err == nil && gs[0].ChatID == ""
	}, "the group is disconnected")
	require.Len(t, e.refusedNow(), 2)
}

// A basic group that became a supergroup keeps its group: the connection
// moves and the message goes to the new chat.
func TestMigratedChat(t *testing.T) {
	e := newEnv(t, 1, 100*time.Millisecond)
	g := e.group()
	const super int64 = -1004487366646
	e.bot.Migrate(chat, super)
	e.expense(e.stores[0], g, ann, "5.00", "lunch", ann)
	e.eventually(func() bool { return len(e.to(super)) == 1 }, "resent to the supergroup")
	got, err := e.stores[0].GroupOfChat(ctx, fmt.Sprint(super))
	require.NoError(t, err)
	require.Equal(t, g.ID, got)

	// A restart reads the stream again: the supergroup is the same
	// destination as the group it was, so nothing is told twice.
	e.start(false)
	time.Sleep(time.Second)
	require.Len(t, e.to(super), 1)
}

// A send that fails after its retries is a dead letter; --replay sends it.
func TestDeadLetterAndReplay(t *testing.T) {
	e := newEnv(t, 1, 100*time.Millisecond)
	g := e.group()
	e.bot.RateLimitNext(4, 0) // no retry_after: backoff, 3 retries, all refused
	e.expense(e.stores[0], g, ann, "8.00", "cinema", ann)
	var letters []store.DeadLetter
	e.eventually(func() bool {
		letters, _ = e.stores[0].ListDeadLetters(ctx)
		return len(letters) == 1
	}, "a dead letter")
	require.Empty(t, e.to(chat))
	require.Equal(t, fmt.Sprint(chat), letters[0].ChatID)
	require.Contains(t, letters[0].Text, "cinema")

	sent, failed, err := e.nots[0].Replay(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, sent)
	require.Zero(t, failed)
	require.Len(t, e.to(chat), 1)
	require.Equal(t, "https://t.me/FractiBot/app?startapp="+g.ID, e.sentNow()[0].Buttons[0].URL)
	letters, err = e.stores[0].ListDeadLetters(ctx)
	require.NoError(t, err)
	require.Empty(t, letters)
}

// A muted member gets no direct message; a digest member gets one message
// per period instead, once however many instances send digests.
func TestMutedAndDigestMembers(t *testing.T) {
	clock := testclock.At(time.Now())
	e := newEnv(t, 2, 100*time.Millisecond, func(o *notify.Options) { o.Now = clock.Now })
	g := e.group()
	yes, daily := true, store.DigestDaily
	_, err := e.stores[0].UpdateNotificationSettings(ctx, g.ID, boris, &yes, nil)
	require.NoError(t, err)
	_, err = e.stores[0].UpdateNotificationSettings(ctx, g.ID, carla, nil, &daily)
	require.NoError(t, err)
	e.expense(e.stores[0], g, ann, "9.00", "groceries", ann, boris, carla)
	e.eventually(func() bool {
		lines, _ := e.stores[0].ListDigestLines(ctx, string(store.DigestDaily))
		return len(e.to(chat)) == 1 && len(lines) == 1
	}, "the chat told, Carla's line queued")
	time.Sleep(300 * time.Millisecond)
	require.Empty(t, e.to(userChat(boris)), "muted")
	require.Empty(t, e.to(userChat(carla)), "on a digest")

	total := 0
	for _, n := range e.nots {
		sent, err := n.SendDigests(ctx, store.DigestDaily)
		require.NoError(t, err)
		total += sent
	}
	require.Equal(t, 1, total, "one digest, whichever instance ran first")
	dm := e.to(userChat(carla))
	require.Len(t, dm, 1)
	require.True(t, strings.HasPrefix(dm[0], "📰 Tu resumen del día\n"), dm[0])
	require.Contains(t, dm[0], "groceries, 9.00 EUR")

	// A restart reads the stream again: a line already sent in a digest is
	// not queued again.
	e.start(false)
	time.Sleep(time.Second)
	lines, err := e.stores[0].ListDigestLines(ctx, string(store.DigestDaily))
	require.NoError(t, err)
	require.Empty(t, lines)

	e.expense(e.stores[0], g, ann, "3.00", "bread", ann, carla)
	e.eventually(func() bool {
		lines, _ := e.stores[0].ListDigestLines(ctx, string(store.DigestDaily))
		return len(lines) == 1
	}, "the next line queued")
	sent, err := e.nots[0].SendDigests(ctx, store.DigestDaily)
	require.NoError(t, err)
	require.Zero(t, sent, "one digest a day")
	clock.Add(24 * time.Hour)
	sent, err = e.nots[1].SendDigests(ctx, store.DigestDaily)
	require.NoError(t, err)
	require.Equal(t, 1, sent, "the next day's")
	require.Contains(t, e.to(userChat(carla))[1], "bread")
}
