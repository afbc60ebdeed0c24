package notify

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/fracti/api/store"
)

// The outbox (store.Letter under NOTIFY#OUTBOX) holds messages that a
// request queued instead of waiting for Telegram: remindDebtors' reminders.
// Whoever sends one takes it off first (a conditional delete), so a
// message is sent by the request or by SendQueued, never both, however
// many instances run it. A message whose send was begun and never answered
// (a timeout) goes back to the outbox: Telegram may have delivered it.

// OutboxInterval is how often every instance with a bot sends what waits
// in the outbox (a Query of one partition when it is empty).
const OutboxInterval = 30 * time.Second

// outboxAttempts is how many sends of a queued message fail (each with the
// notifier's retries) before it becomes a dead letter.
const outboxAttempts = 10

// errStopped: not tried, since an earlier message of the same request
// failed; errTaken: another sender took the message off the outbox first.
var (
	errStopped = errors.New("not tried: Telegram did not answer an earlier message")
	errTaken   = errors.New("taken off the outbox by another sender")
)

// sendQueuedOnce takes queued letter l off the outbox (with ctx) and tries
// it once within sendCtx; a failure that is not a refusal for good puts it
// back (errStopped and errTaken are not failures of this send).
func (n *Notifier) sendQueuedOnce(ctx, sendCtx context.Context, l store.Letter) error {
	took, err := n.opts.Store.TakeQueued(ctx, l)
	if err != nil {
		return err
	}
	if !took {
		return errTaken
	}
	out, ok := letterOutgoing(l)
	if !ok {
		return nil
	}
	err = n.trySend(sendCtx, l.GroupID, &out, 0)
	if err != nil && !errors.Is(err, errGone) {
		n.requeue(ctx, l, err)
	}
	return err
}

// requeue puts a letter whose send failed back in the outbox, or among the
// dead letters after outboxAttempts.
func (n *Notifier) requeue(ctx context.Context, l store.Letter, cause error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), windowRetry)
	defer cancel()
	l.Attempts++
	l.Reason = cause.Error()
	if l.Attempts >= outboxAttempts {
		out, _ := letterOutgoing(l)
		n.deadLetter(ctx, l.GroupID, out, cause)
		return
	}
	if _, err := n.opts.Store.QueueLetters(ctx, []store.Letter{l}); err != nil {
		n.log().Error("notifier: a queued message is lost: it could not be sent nor queued again", "group", l.GroupID, "chat", l.ChatID, "cause", cause, "err", err)
	}
}

// SendQueued sends what waits in the outbox, oldest first, each with the
// notifier's retries: a message whose chat refuses the bot for good has its
// fallback said in its group's chat instead (a debtor's mention); one that
// still fails goes back to the outbox (a dead letter after outboxAttempts),
// and ends the run: the rest wait for the next.
// It returns how many messages it sent. Every instance with a bot runs it
// (wiring), and each message is taken off the outbox by one.
func (n *Notifier) SendQueued(ctx context.Context) (int, error) {
	letters, err := n.opts.Store.ListQueued(ctx)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, l := range letters {
		took, err := n.opts.Store.TakeQueued(ctx, l)
		if err != nil {
			return sent, err
		}
		out, ok := letterOutgoing(l)
		if !took || !ok {
			continue
		}
		err = n.trySend(ctx, l.GroupID, &out, n.opts.Retries)
		if errors.Is(err, errGone) && l.FallbackText != "" {
			err = n.fallback(ctx, l)
		}
		switch {
		case err == nil:
			sent++
		case errors.Is(err, errGone):
		default:
			// Telegram still fails after the retries: the rest wait for
			// the next run rather than each spending the retries again.
			n.requeue(ctx, l, err)
			if ctx.Err() != nil {
				return sent, ctx.Err()
			}
			return sent, err
		}
	}
	return sent, nil
}

// fallback says l's fallback in its group's chat as it is now (the chat may
// have moved since it was queued; none: nothing is said).
func (n *Notifier) fallback(ctx context.Context, l store.Letter) error {
	groups, err := n.opts.Store.GetGroups(ctx, []string{l.GroupID})
	if err != nil {
		return err
	}
	if len(groups) == 0 || groups[0] == nil || groups[0].ChatID == "" {
		return errGone
	}
	g := groups[0]
	chatID, err := strconv.ParseInt(g.ChatID, 10, 64)
	if err != nil {
		return errGone
	}
	return n.trySend(ctx, g.ID, new(n.outgoing(chatID, g.ChatLanguage, g.ID, l.FallbackText)), n.opts.Retries)
}
