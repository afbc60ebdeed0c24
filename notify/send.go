package notify

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// errGone means Telegram refused the destination for good (a 403): the
// user's direct messages are off, or the bot left the group chat. The
// message is dropped, not retried and not dead-lettered.
var errGone = errors.New("the destination refuses the bot")

// send delivers one message: within this process's limits (telegram.Limiter)
// and within the counts every instance shares: per group chat a minute
// (store.TakeChatSlot) and for the bot a second (store.TakeBotSlot); a 429 waits its retry_after (without one, a backoff
// from BaseBackoff doubling up to MaxBackoff); a temporary failure is
// retried up to Retries times; a migrated group chat moves the group's
// connection and the message goes to the new id. What still fails lands on
// the dead-letter list, and so does a message this instance claimed but
// could not send before it stopped (a shutdown, a table error): a claimed
// message is sent or kept, never dropped. It returns errGone for a 403
// (after recording it).
func (n *Notifier) send(ctx context.Context, groupID string, out telegram.Outgoing) error {
	err := n.trySend(ctx, groupID, &out, n.opts.Retries)
	if err != nil && !errors.Is(err, errGone) {
		n.deadLetter(ctx, groupID, out, err)
	}
	return err
}

// trySend is send without the dead letter, retrying up to retries times;
// out follows a migrated chat.
func (n *Notifier) trySend(ctx context.Context, groupID string, out *telegram.Outgoing, retries int) error {
	var (
		last  error
		moved bool
	)
	for attempt := 0; attempt <= retries; {
		if err := n.opts.Limiter.Wait(ctx, out.ChatID); err != nil {
			return err
		}
		if out.ChatID < 0 {
			ok, err := n.opts.Store.TakeChatSlot(ctx, chatKey(out.ChatID), n.now(), telegram.GroupPerMinute)
			if err != nil {
				return err
			}
			if !ok { // the instances together have sent this minute's share
				now := n.now()
				if err := sleep(ctx, now.Truncate(time.Minute).Add(time.Minute).Sub(now)); err != nil {
					return err
				}
				continue
			}
		}
		if err := n.takeBotSlot(ctx); err != nil {
			return err
		}
		_, err := n.opts.Bot.SendMessage(ctx, *out)
		if err == nil {
			return nil
		}
		last = err
		if to, ok := telegram.MigratedTo(err); ok && to != out.ChatID && !moved {
			moved = true // a chat migrates once: a second answer so is a refusal
			if _, merr := n.opts.Store.MoveTelegramChat(ctx, chatKey(out.ChatID), chatKey(to)); merr != nil {
				return merr
			}
			n.log().Info("notifier: a group chat became a supergroup; its connection moved", "group", groupID, "from", out.ChatID, "to", to)
			out.ChatID = to
			continue
		}
		if telegram.Forbidden(err) {
			return n.refused(ctx, groupID, out.ChatID, err)
		}
		retryAfter, limited := telegram.RateLimited(err)
		if !limited && !telegram.Temporary(err) {
			break // a refusal that a retry does not change
		}
		attempt++
		if attempt > retries {
			break
		}
		wait := retryAfter
		if wait <= 0 {
			wait = min(n.opts.BaseBackoff<<(attempt-1), n.opts.MaxBackoff)
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return last
}

// refused records a 403: a private chat's user gets no direct messages
// until they /start the bot again; a group chat is disconnected, as the
// webhook does when the bot is removed.
func (n *Notifier) refused(ctx context.Context, groupID string, chatID int64, cause error) error {
	var err error
	if chatID > 0 {
		err = n.opts.Store.SetDirectMessages(ctx, chatKey(chatID), false)
	} else {
		_, err = n.opts.Store.DisconnectTelegramChat(ctx, groupID, chatKey(chatID), "")
	}
	if err != nil {
		return err
	}
	n.log().Info("notifier: Telegram refused a chat", "group", groupID, "chat", chatID, "err", cause)
	return errGone
}

// letter is a message as the notifier's lists keep it.
func letter(groupID string, out telegram.Outgoing) store.Letter {
	l := store.Letter{GroupID: groupID, ChatID: chatKey(out.ChatID), Text: out.Text}
	if len(out.Buttons) > 0 {
		l.ButtonText, l.ButtonURL = out.Buttons[0].Text, out.Buttons[0].URL
	}
	return l
}

// letterOutgoing is the message a kept letter holds; false when its chat
// is not a Telegram id.
func letterOutgoing(l store.Letter) (telegram.Outgoing, bool) {
	chatID, err := strconv.ParseInt(l.ChatID, 10, 64)
	if err != nil {
		return telegram.Outgoing{}, false
	}
	out := telegram.Outgoing{ChatID: chatID, Text: l.Text}
	if l.ButtonURL != "" {
		out.Buttons = []telegram.Button{{Text: l.ButtonText, URL: l.ButtonURL}}
	}
	return out, true
}

// deadLetter keeps a message that could not be sent, for `notify --replay`.
func (n *Notifier) deadLetter(ctx context.Context, groupID string, out telegram.Outgoing, cause error) {
	d := letter(groupID, out)
	d.Reason = cause.Error()
	if _, err := n.opts.Store.AddDeadLetter(context.WithoutCancel(ctx), d); err != nil {
		n.log().Error("notifier: a message is lost: it could not be sent nor kept", "group", groupID, "chat", out.ChatID, "cause", cause, "err", err)
		return
	}
	n.log().Warn("notifier: a message could not be sent; it is on the dead-letter list", "group", groupID, "chat", out.ChatID, "err", cause)
}

// Replay sends every dead letter again, oldest first, and removes those
// sent or refused for good; those that fail again stay (as a new dead letter).
func (n *Notifier) Replay(ctx context.Context) (sent, failed int, err error) {
	letters, err := n.opts.Store.ListDeadLetters(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, d := range letters {
		out, ok := letterOutgoing(d)
		if !ok {
			continue
		}
		// Taken off the list first: a replay running beside this one
		// skips it, and send keeps it again if it fails again.
		took, err := n.opts.Store.TakeDeadLetter(ctx, d)
		if err != nil {
			return sent, failed, err
		}
		if !took {
			continue
		}
		if serr := n.send(ctx, d.GroupID, out); serr == nil {
			sent++
		} else {
			failed++ // a refusal for good is dropped; a failure was kept again by send
		}
		if ctx.Err() != nil {
			return sent, failed, ctx.Err()
		}
	}
	return sent, failed, nil
}

// chatKey writes a Telegram id as the store keeps it: exact decimal text.
func chatKey(id int64) string { return strconv.FormatInt(id, 10) }

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// takeBotSlot waits for room in the second's count of messages every
// instance shares (Telegram's overall limit).
func (n *Notifier) takeBotSlot(ctx context.Context) error {
	for {
		ok, err := n.opts.Store.TakeBotSlot(ctx, n.now(), telegram.GlobalPerSecond)
		if err != nil || ok {
			return err
		}
		now := n.now()
		if err := sleep(ctx, now.Truncate(time.Second).Add(time.Second).Sub(now)); err != nil {
			return err
		}
	}
}
