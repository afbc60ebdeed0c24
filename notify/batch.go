package notify

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// maxText is the longest text Telegram accepts in one message; a batch
// longer than that goes out in several, split between lines.
const maxText = 4096

// subjects is what a batch's events are about, read in a few batch reads.
type subjects struct {
	expenses    map[string]*store.Expense
	settlements map[string]*store.Settlement
	members     members
}

// readSubjects reads the expenses, settlements and members the events name.
func (n *Notifier) readSubjects(ctx context.Context, groupID string, events []store.Event) (subjects, error) {
	var (
		eRefs []store.ExpenseRef
		sRefs []store.SettlementRef
		users []string
	)
	for i := range events {
		ev := &events[i]
		users = append(users, ev.ActorID)
		if _, ok := ev.ExpenseRef(); ok {
			eRefs = append(eRefs, store.ExpenseRef{ID: ev.Subject.ID}) // by id: found while deleted too
		}
		if r, ok := ev.SettlementRef(); ok {
			sRefs = append(sRefs, r)
		}
		if ev.Subject.Kind == store.SubjectMember {
			users = append(users, ev.Subject.ID)
		}
	}
	s := subjects{expenses: map[string]*store.Expense{}, settlements: map[string]*store.Settlement{}}
	es, err := n.opts.Store.GetExpenses(ctx, eRefs)
	if err != nil {
		return s, err
	}
	for _, e := range es {
		if e != nil {
			s.expenses[e.ID] = e
			users = append(users, e.PayerID, e.CreatedBy)
			for _, sp := range e.Splits {
				users = append(users, sp.UserID)
			}
			for _, p := range e.Payers {
				users = append(users, p.UserID)
			}
		}
	}
	ss, err := n.opts.Store.GetSettlements(ctx, sRefs)
	if err != nil {
		return s, err
	}
	for _, st := range ss {
		if st != nil {
			s.settlements[st.ID] = st
		}
	}
	slices.Sort(users)
	users = slices.Compact(users)
	keys := make([]store.MemberKey, 0, len(users))
	for _, u := range users {
		if u != "" {
			keys = append(keys, store.MemberKey{GroupID: groupID, UserID: u})
		}
	}
	s.members, err = n.readMembers(ctx, keys)
	return s, err
}

// readMembers reads memberships by user id (former members too, so that
// their names still show).
func (n *Notifier) readMembers(ctx context.Context, keys []store.MemberKey) (members, error) {
	ms, err := n.opts.Store.GetMembers(ctx, keys)
	out := members{}
	for _, m := range ms {
		if m != nil {
			out[m.UserID] = m
		}
	}
	return out, err
}

// members are memberships by user id.
type members map[string]*store.Member

// name is the member's name, their id when unknown.
func (ms members) name(userID string) string {
	if m := ms[userID]; m != nil && m.Name != "" {
		return m.Name
	}
	return userID
}

func (s subjects) name(userID string) string { return s.members.name(userID) }

// line is the chat line of one event in lang, "" when there is nothing to say.
func (s subjects) line(lang string, ev *store.Event) string {
	actor := s.name(ev.ActorID)
	switch ev.Subject.Kind {
	case store.SubjectExpense:
		e := s.expenses[ev.Subject.ID]
		if e == nil {
			return ""
		}
		m := map[store.EventType]msg{store.EventExpenseCreated: msgExpenseCreated, store.EventExpenseUpdated: msgExpenseUpdated,
			store.EventExpenseDeleted: msgExpenseDeleted, store.EventExpenseRestored: msgExpenseRestored}[ev.Type]
		return render(lang, m, "actor", actor, "what", e.Description, "amount", formatAmount(e.Amount), "payer", s.name(e.PayerID))
	case store.SubjectSettlement:
		st := s.settlements[ev.Subject.ID]
		if st == nil {
			return ""
		}
		m := msgSettlementCreated
		if ev.Type == store.EventSettlementCompleted {
			m = msgSettlementCompleted
		}
		return render(lang, m, "from", st.FromUserName, "to", st.ToUserName, "amount", formatAmount(st.Amount))
	case store.SubjectMember:
		m := msgMemberJoined
		switch ev.Type {
		case store.EventMemberLeft:
			m = msgMemberLeft
		case store.EventMemberRemoved:
			m = msgMemberRemoved
		}
		return render(lang, m, "name", s.name(ev.Subject.ID))
	}
	return ""
}

// sendToChat sends the lines of the events claimed for the group's chat
// (lines by seq), in order, as one message (or a few, if long).
func (n *Notifier) sendToChat(ctx context.Context, g *store.Group, lines map[int64]string, claimed []int64) error {
	if g == nil || g.ChatID == "" || len(claimed) == 0 {
		return nil
	}
	chatID, err := strconv.ParseInt(g.ChatID, 10, 64)
	if err != nil {
		return err
	}
	slices.Sort(claimed)
	texts := make([]string, len(claimed))
	for i, seq := range claimed {
		texts[i] = lines[seq]
	}
	head := "<b>" + telegram.EscapeHTML(g.Title) + "</b>"
	if err := n.sendLines(ctx, g.ID, chatID, g.ChatLanguage, head, texts); err != nil && !errors.Is(err, errGone) {
		return err
	}
	return nil
}

// sendLines sends head and lines to chatID as one message, or as several
// when they pass Telegram's 4096 characters, stopping at the first that
// fails.
func (n *Notifier) sendLines(ctx context.Context, groupID string, chatID int64, lang, head string, lines []string) error {
	for _, text := range chunks(head, lines) {
		if err := n.send(ctx, groupID, n.outgoing(chatID, lang, groupID, text)); err != nil {
			return err
		}
	}
	return nil
}

// outgoing is a message with the button that opens the group.
func (n *Notifier) outgoing(chatID int64, lang, groupID, text string) telegram.Outgoing {
	out := telegram.Outgoing{ChatID: chatID, Text: text}
	if url := n.opts.Links.GroupURL(groupID); url != "" {
		out.Buttons = []telegram.Button{{Text: render(lang, msgOpen), URL: url}}
	}
	return out
}

// chunks joins lines under head into texts of at most maxText characters.
func chunks(head string, lines []string) []string {
	var out []string
	cur := head
	for _, l := range lines {
		if len(cur)+1+len(l) > maxText && cur != head {
			out = append(out, cur)
			cur = head
		}
		cur += "\n" + l
	}
	return append(out, cur)
}

// sendDirect tells each member a new expense names (not its author) their
// share: a direct message, a digest line for digest members, nothing for
// muted ones or those Telegram refuses. Whether each may get direct
// messages is read once for the batch (one BatchGetItem).
func (n *Notifier) sendDirect(ctx context.Context, g *store.Group, events []store.Event, subj subjects) error {
	type share struct {
		seq  int64
		m    *store.Member
		text string
	}
	var (
		shares []share
		users  []string
	)
	for i := range events {
		ev := &events[i]
		e := subj.expenses[ev.Subject.ID]
		if ev.Type != store.EventExpenseCreated || e == nil {
			continue
		}
		for _, userID := range named(e) {
			m := subj.members[userID]
			if userID == e.CreatedBy || store.IsPlaceholderID(userID) || m == nil || !m.Active() || m.Muted {
				continue
			}
			text := render(m.Language, msgShare, "group", g.Title, "what", e.Description, "amount", formatAmount(e.Amount),
				"payer", subj.name(e.PayerID), "share", formatAmount(shareOf(e, userID)))
			shares = append(shares, share{seq: ev.Seq, m: m, text: text})
			users = append(users, userID)
		}
	}
	if len(shares) == 0 {
		return nil
	}
	allowed, err := n.opts.Store.DirectMessagesAllowed(ctx, users)
	if err != nil {
		return err
	}
	var errs []error
	for _, sh := range shares {
		errs = append(errs, n.direct(ctx, g, sh.seq, sh.m, sh.text, allowed[sh.m.UserID]))
	}
	return errors.Join(errs...)
}

// destGroupChat is the marker destination of a group's chat messages, and
// of its batch window: the group's chat is one destination whatever its
// id, so a chat that became a supergroup keeps the markers of what it was
// already told.
const destGroupChat = "chat"

// direct sends one member's line of event seq, or queues it for their
// digest; allowed says whether the bot may write to them privately.
func (n *Notifier) direct(ctx context.Context, g *store.Group, seq int64, m *store.Member, text string, allowed bool) error {
	if m.Digest == store.DigestDaily || m.Digest == store.DigestWeekly {
		// Claimed like a message, so a line already sent in a digest is
		// not queued again when the stream is read again after a restart.
		claimed, err := n.opts.Store.ClaimNotifications(ctx, g.ID, []int64{seq}, "digest:"+m.UserID)
		if err != nil || len(claimed) == 0 {
			return err
		}
		return n.opts.Store.QueueDigestLine(ctx, string(m.Digest), store.DigestLine{UserID: m.UserID, GroupID: g.ID, Seq: seq, Text: text, Language: m.Language})
	}
	userChat, err := strconv.ParseInt(m.UserID, 10, 64)
	if !allowed || err != nil {
		return nil // refused before, until they /start the bot; or not a Telegram user
	}
	claimed, err := n.opts.Store.ClaimNotifications(ctx, g.ID, []int64{seq}, "dm:"+m.UserID)
	if err != nil || len(claimed) == 0 {
		return err
	}
	if err := n.send(ctx, g.ID, n.outgoing(userChat, m.Language, g.ID, text)); err != nil && !errors.Is(err, errGone) {
		return err
	}
	return nil
}

// named lists the users an expense names: its payers and its beneficiaries.
func named(e *store.Expense) []string {
	ids := e.InvolvedUsers()
	slices.Sort(ids)
	return ids
}

// shareOf is what the user's part of the expense is (zero if none).
func shareOf(e *store.Expense, userID string) money.Amount {
	for _, sp := range e.Splits {
		if sp.UserID == userID {
			return sp.Amount
		}
	}
	return money.Zero(e.Amount.Currency())
}
