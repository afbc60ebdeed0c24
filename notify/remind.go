package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/ledger"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// ReminderReport is what remindDebtors did within its deadline.
type ReminderReport struct {
	DirectMessages  int // debtors who got a direct message
	MentionedInChat int // debtors mentioned in the group chat instead
	// Queued counts the debtors whose reminder (a direct message or a
	// mention) Telegram did not take within the deadline: it waits in the
	// outbox, which the notifier sends (SendQueued).
	Queued int
}

// RateLimitedError refuses a second reminder of the same group on one day.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("the group's debtors were reminded today already; try again in %s", e.RetryAfter.Round(time.Second))
}

// reminderKeep is how long a reminder stamp outlives its day.
const reminderKeep = 48 * time.Hour

// debts is a group's simplified debts, by debtor, with everyone's names.
type debts struct {
	transfers []ledger.Transfer
	byDebtor  map[string][]ledger.Transfer
	members   members
}

// readDebts reads the group's balances and settles them per currency as
// the group shows its debts: simplified (the fewest transfers), or pairwise
// when its simplifyDebts setting is off.
func (n *Notifier) readDebts(ctx context.Context, g *store.Group) (debts, error) {
	groupID := g.ID
	d := debts{byDebtor: map[string][]ledger.Transfer{}, members: members{}}
	gbs, err := n.opts.Store.GetBalances(ctx, []string{groupID})
	if err != nil || len(gbs) == 0 || gbs[0] == nil {
		return d, err
	}
	var keys []store.MemberKey
	for _, b := range gbs[0].Books {
		var ts []ledger.Transfer
		if g.SimplifyDebts() {
			ts, err = b.Simplified()
		} else if err = b.LoadPairs(); err == nil {
			ts = ledger.Pairwise(b)
		}
		if err != nil {
			return d, err
		}
		for _, t := range ts {
			d.transfers = append(d.transfers, t)
			d.byDebtor[t.From] = append(d.byDebtor[t.From], t)
			keys = append(keys, store.MemberKey{GroupID: groupID, UserID: t.From}, store.MemberKey{GroupID: groupID, UserID: t.To})
		}
	}
	d.members, err = n.readMembers(ctx, keys)
	return d, err
}

// RemindDebtors sends each member of the group who owes a direct message
// with what they owe and to whom, at most once a UTC day per group (a
// conditional stamp; a second call is a *RateLimitedError). Muted members
// get no direct message and are not mentioned either (muting a group means
// hearing nothing from it); placeholders have no Telegram account and are
// skipped. Those Telegram refuses (or who never started the bot) are
// mentioned in one message in the group's chat, when it has one.
//
// It waits for Telegram at most RemindTimeout in all: the reminders are
// queued in the outbox first (one transaction), then sent from it, each
// tried once; what is not sent by then (Telegram unreachable, slow, or
// limiting the bot) stays queued for SendQueued, and the report says so.
func (n *Notifier) RemindDebtors(ctx context.Context, groupID string) (ReminderReport, error) {
	now := n.now().UTC()
	day := now.Format(time.DateOnly)
	first, err := n.opts.Store.ClaimGroupStamp(ctx, groupID, store.StampReminder, day, reminderKeep)
	if err != nil {
		return ReminderReport{}, err
	}
	if !first {
		return ReminderReport{}, &RateLimitedError{RetryAfter: now.Truncate(24 * time.Hour).Add(24 * time.Hour).Sub(now)}
	}
	report, err := n.remind(ctx, groupID)
	if err != nil {
		// Nothing reached anyone, nor was queued: the members may ask again today.
		if report == (ReminderReport{}) {
			_ = n.opts.Store.ReleaseGroupStamp(context.WithoutCancel(ctx), groupID, store.StampReminder, day)
		}
		return report, err
	}
	return report, nil
}

// reminder is one queued message of remindDebtors: a debtor's direct
// message (or a part of it), or the chat's mention of debtors.
type reminder struct {
	letter   store.Letter
	debtor   string   // the direct message's debtor
	mentions []string // the mention's debtors
}

func (n *Notifier) remind(ctx context.Context, groupID string) (ReminderReport, error) {
	groups, err := n.opts.Store.GetGroups(ctx, []string{groupID})
	if err != nil || len(groups) == 0 || groups[0] == nil {
		return ReminderReport{}, err
	}
	g := groups[0]
	d, err := n.readDebts(ctx, g)
	if err != nil {
		return ReminderReport{}, err
	}
	debtors := slices.Sorted(func(yield func(string) bool) {
		for id := range d.byDebtor {
			if !yield(id) {
				return
			}
		}
	})
	var candidates []string
	for _, id := range debtors {
		if m := d.members[id]; m != nil && m.Active() && !m.Muted && !store.IsPlaceholderID(id) {
			candidates = append(candidates, id)
		}
	}
	allowed, err := n.opts.Store.DirectMessagesAllowed(ctx, candidates)
	if err != nil {
		return ReminderReport{}, err
	}
	var (
		rs      []reminder
		refused []string // known to refuse direct messages: mentioned
	)
	for _, id := range candidates {
		m := d.members[id]
		userChat, perr := strconv.ParseInt(id, 10, 64)
		if perr != nil {
			continue
		}
		if !allowed[id] {
			refused = append(refused, id)
			continue
		}
		var lines []string
		for _, t := range d.byDebtor[id] {
			lines = append(lines, render(m.Language, msgOweLine, "amount", formatAmount(t.Amount), "to", d.members.name(t.To)))
		}
		for _, text := range chunks(render(m.Language, msgYouOwe, "group", g.Title), lines) {
			l := letter(groupID, n.outgoing(userChat, m.Language, groupID, text))
			if g.ChatID != "" {
				l.FallbackText = mentionText(g, []string{mention(id, m.Name)})
			}
			rs = append(rs, reminder{letter: l, debtor: id})
		}
	}
	return n.deliverReminders(ctx, g, d.members, rs, refused)
}

// mentionText is the chat's mention of debtors (their mention links).
func mentionText(g *store.Group, mentions []string) string {
	return renderRaw(g.ChatLanguage, msgMentionDebtors, "names", strings.Join(mentions, ", "))
}

// mentionReminder is the chat's message naming the debtors; false when the
// group has no chat.
func (n *Notifier) mentionReminder(g *store.Group, ms members, debtors []string) (reminder, bool) {
	chatID, err := strconv.ParseInt(g.ChatID, 10, 64)
	if err != nil || len(debtors) == 0 {
		return reminder{}, false
	}
	mentions := make([]string, len(debtors))
	for i, id := range debtors {
		mentions[i] = mention(id, ms[id].Name)
	}
	return reminder{letter: letter(g.ID, n.outgoing(chatID, g.ChatLanguage, g.ID, mentionText(g, mentions))), mentions: debtors}, true
}

// deliverReminders queues the direct messages rs, then sends them within
// one deadline (RemindTimeout), each tried once; the debtors refused
// (known before, or by a 403 now) are then mentioned in the chat, queued
// and sent the same way. The first failure that is not a refusal ends the
// trying: that message goes back to the outbox, with what was not tried.
func (n *Notifier) deliverReminders(ctx context.Context, g *store.Group, ms members, rs []reminder, refused []string) (ReminderReport, error) {
	var report ReminderReport
	if err := n.queueReminders(ctx, rs); err != nil {
		return report, err
	}
	dctx, cancel := context.WithTimeout(ctx, n.opts.RemindTimeout)
	defer cancel()
	var (
		stopped bool
		sent    = map[string]bool{}
		waiting = map[string]bool{}
	)
	try := func(r reminder) {
		err := errStopped
		if !stopped {
			err = n.sendQueuedOnce(ctx, dctx, r.letter)
		}
		switch {
		case err == nil && r.debtor != "":
			sent[r.debtor] = true
		case err == nil:
			report.MentionedInChat += len(r.mentions)
		case errors.Is(err, errGone) && r.debtor != "":
			if !slices.Contains(refused, r.debtor) {
				refused = append(refused, r.debtor)
			}
		case errors.Is(err, errGone): // the bot left the chat: nobody to tell
		default: // queued: by this request, or taken by the outbox's sender
			stopped = stopped || !errors.Is(err, errTaken)
			for _, id := range append([]string{r.debtor}, r.mentions...) {
				if id != "" {
					waiting[id] = true
				}
			}
		}
	}
	for _, r := range rs {
		try(r)
	}
	if m, ok := n.mentionReminder(g, ms, refused); ok {
		queued := []reminder{m}
		if err := n.queueReminders(ctx, queued); err != nil {
			return report, err
		}
		try(queued[0])
	}
	for id := range sent {
		if !waiting[id] && !slices.Contains(refused, id) {
			report.DirectMessages++
		}
	}
	report.Queued = len(waiting)
	return report, nil
}

// queueReminders puts rs in the outbox, their letters updated as queued.
func (n *Notifier) queueReminders(ctx context.Context, rs []reminder) error {
	letters := make([]store.Letter, len(rs))
	for i, r := range rs {
		letters[i] = r.letter
	}
	queued, err := n.opts.Store.QueueLetters(ctx, letters)
	if err != nil {
		return err
	}
	for i := range rs {
		rs[i].letter = queued[i]
	}
	return nil
}

// isoWeek names the ISO week of t, "2026-W48".
func isoWeek(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// weeklyKeep is how long a weekly stamp outlives its week.
const weeklyKeep = 15 * 24 * time.Hour

// SendWeeklyReminders posts the debts of every group that asked for a weekly
// reminder to its chat, once an ISO week per group (a conditional stamp:
// whichever instance gets there first), and returns how many it posted.
func (n *Notifier) SendWeeklyReminders(ctx context.Context) (int, error) {
	ids, err := n.opts.Store.WeeklyReminderGroups(ctx)
	if err != nil {
		return 0, err
	}
	week, posted := isoWeek(n.now()), 0
	var errs []error
	for _, id := range ids {
		groups, err := n.opts.Store.GetGroups(ctx, []string{id})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(groups) == 0 || groups[0] == nil || !groups[0].WeeklyReminder || groups[0].ChatID == "" || groups[0].Archived() {
			continue // deleted (read as missing), off, without a chat, or archived: closed, nobody is reminded
		}
		g := groups[0]
		first, err := n.opts.Store.ClaimGroupStamp(ctx, id, store.StampWeeklyReminder, week, weeklyKeep)
		if err != nil || !first {
			errs = append(errs, err)
			continue
		}
		if err := n.weeklyReminder(ctx, g); err != nil && !errors.Is(err, errGone) {
			errs = append(errs, err)
			continue
		}
		posted++
	}
	return posted, errors.Join(errs...)
}

func (n *Notifier) weeklyReminder(ctx context.Context, g *store.Group) error {
	chatID, err := strconv.ParseInt(g.ChatID, 10, 64)
	if err != nil {
		return err
	}
	d, err := n.readDebts(ctx, g)
	if err != nil {
		return err
	}
	lang := g.ChatLanguage
	if len(d.transfers) == 0 {
		return n.send(ctx, g.ID, n.outgoing(chatID, lang, g.ID, render(lang, msgWeeklySettled, "group", g.Title)))
	}
	var lines []string
	for _, t := range d.transfers {
		lines = append(lines, render(lang, msgDebtLine, "from", d.members.name(t.From), "to", d.members.name(t.To), "amount", formatAmount(t.Amount)))
	}
	return n.sendLines(ctx, g.ID, chatID, lang, render(lang, msgWeeklyReminder, "group", g.Title), lines)
}

// SendDigests sends each member on the kind's digest (store.DigestDaily or
// store.DigestWeekly) one message with their queued lines, once per period
// (the UTC day or ISO week: a conditional stamp per member, so that
// whichever instance runs first sends it), and removes the lines sent. It
// returns how many digests it sent.
func (n *Notifier) SendDigests(ctx context.Context, kind store.Digest) (int, error) {
	period, stamp, heading := n.now().UTC().Format(time.DateOnly), store.StampDigestDaily, msgDigestDaily
	if kind == store.DigestWeekly {
		period, stamp, heading = isoWeek(n.now()), store.StampDigestWeekly, msgDigestWeekly
	}
	lines, err := n.opts.Store.ListDigestLines(ctx, string(kind))
	if err != nil {
		return 0, err
	}
	if lines, err = n.liveLines(ctx, lines); err != nil {
		return 0, err
	}
	sent := 0
	var errs []error
	for len(lines) > 0 {
		// The queue is ordered by user: take one user's lines.
		end := 1
		for end < len(lines) && lines[end].UserID == lines[0].UserID {
			end++
		}
		userLines := lines[:end]
		lines = lines[end:]
		userID := userLines[0].UserID
		userChat, perr := strconv.ParseInt(userID, 10, 64)
		if perr != nil {
			continue
		}
		first, err := n.opts.Store.ClaimUserStamp(ctx, userID, stamp, period, weeklyKeep)
		if err != nil || !first {
			errs = append(errs, err)
			continue // sent this period already: these lines wait for the next
		}
		allowed, err := n.opts.Store.DirectMessagesAllowed(ctx, []string{userID})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if allowed[userID] {
			texts := make([]string, len(userLines))
			for i, l := range userLines {
				texts[i] = l.Text
			}
			lang := userLines[0].Language
			for _, text := range chunks(render(lang, heading), texts) {
				err = n.send(ctx, userLines[0].GroupID, telegram.Outgoing{ChatID: userChat, Text: text})
				if err != nil {
					break
				}
			}
			if err != nil && !errors.Is(err, errGone) {
				errs = append(errs, err)
			} else if err == nil {
				sent++
			}
		}
		errs = append(errs, n.opts.Store.DeleteDigestLines(ctx, string(kind), userLines))
	}
	return sent, errors.Join(errs...)
}

// liveLines is the digest lines of groups that are not deleted: a deleted
// group's lines wait (sent if it is restored, purged with it otherwise).
func (n *Notifier) liveLines(ctx context.Context, lines []store.DigestLine) ([]store.DigestLine, error) {
	var ids []string
	for _, l := range lines {
		if !slices.Contains(ids, l.GroupID) {
			ids = append(ids, l.GroupID)
		}
	}
	if len(ids) == 0 {
		return lines, nil
	}
	groups, err := n.opts.Store.GetGroups(ctx, ids)
	if err != nil {
		return nil, err
	}
	kept := lines[:0:0]
	for _, l := range lines {
		if groups[slices.Index(ids, l.GroupID)] != nil {
			kept = append(kept, l)
		}
	}
	return kept, nil
}
