package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/freetext"
	"github.com/fracti/api/money"
	"golang.org/x/sync/errgroup"
)

// Finding expenses (issue 35): a group's expenses, or the user's across
// their groups, that match an ExpenseFilter, page by page with exact
// hasNext.
//
// Where they are read from:
//
//   - with a range of spent days, from the group's day items of exactly that
//     range (expense_day.go), newest day first and within a day newest created
//     first; the expenses they name are read by key (BatchGetItem), only as
//     many as the page needs, and the other conditions applied to them. A
//     group whose days are not kept yet (before `migrate`) is read whole
//     instead, in the same order: correct, only slower;
//   - without one, from the group's expenses (TX#) newest created first, the
//     conditions applied to each as it is read;
//   - deleted ones from the tombstones (DELETED#), which live at most
//     RestoreWindow.
//
// Reading stops as soon as the page and one more match are found, so that
// hasNext is exact; each read asks for what is still missing, more when the
// matches so far were few (at most maxFindChunk items a read). No condition
// is a FilterExpression: DynamoDB would charge the items it drops all the
// same, and amounts, payers, shares and words are compared in Go exactly.
//
// A position in such a list is a sort key (DAY#… with a range of days,
// TX#… or DELETED#… without), and sort keys compare across groups, so the
// user's list reads each of their groups from the same cursor and merges
// them (at most findConcurrency Queries at a time).

// ExpenseFilter selects expenses. Its zero value selects every live expense.
type ExpenseFilter struct {
	// From and To are spent days (DayLayout, in the group's time zone, as
	// Expense.SpentOn), both included; "" leaves that end open.
	From, To string
	// Category, when set, is the category the expense must have exactly;
	// "" selects expenses without one.
	Category *string
	// PayerID is a user who must be among the payers.
	PayerID string
	// ParticipantID is a user who must have a share above zero.
	ParticipantID string
	// Currency is the code of the expense's currency.
	Currency string
	// MinAmount and MaxAmount bound the expense's amount (both included), as
	// decimals in the expense's own currency.
	MinAmount, MaxAmount *money.Decimal
	// Deleted lists the deleted expenses that may still be restored instead
	// of the live ones.
	Deleted bool
	// Search are folded words (freetext.Words) that must each begin a word
	// of the expense's description or of one of its comments.
	Search []string
}

// IsZero reports whether the filter selects every live expense.
func (f *ExpenseFilter) IsZero() bool {
	return !f.dated() && !f.Deleted && !f.checks()
}

// dated reports whether the filter has a range of days.
func (f *ExpenseFilter) dated() bool { return f.From != "" || f.To != "" }

// checks reports whether the filter has a condition that only the
// expense itself can tell (beyond its day, and live or deleted).
func (f *ExpenseFilter) checks() bool {
	return f.Category != nil || f.PayerID != "" || f.ParticipantID != "" || f.Currency != "" ||
		f.MinAmount != nil || f.MaxAmount != nil || len(f.Search) > 0
}

// Fingerprint names the filter in its lists' cursors (and a request's
// pages), so that a cursor continues only the list it came from.
func (f *ExpenseFilter) Fingerprint() string {
	opt := func(d *money.Decimal) string {
		if d == nil {
			return "-"
		}
		return d.String()
	}
	cat := "-"
	if f.Category != nil {
		cat = "=" + *f.Category
	}
	parts := []string{f.From, f.To, cat, f.PayerID, f.ParticipantID, f.Currency, opt(f.MinAmount), opt(f.MaxAmount),
		fmt.Sprint(f.Deleted), strings.Join(f.Search, " ")}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// ExpenseScope is one group a search reads: its id, and whether its
// expense days are kept (Group.DaysKept).
type ExpenseScope struct {
	GroupID  string
	DaysKept bool
}

// Scope is the group as a search reads it.
func (g *Group) Scope() ExpenseScope { return ExpenseScope{GroupID: g.ID, DaysKept: g.DaysKept} }

// FindExpenses pages through the group's expenses that match f: by spent
// day with a range of days, else newest created first.
func (s *Store) FindExpenses(ctx context.Context, group ExpenseScope, f ExpenseFilter, args PageArgs) (Page[Expense], error) {
	return s.findExpenses(ctx, "find-expenses:"+group.GroupID+":"+f.Fingerprint(), []ExpenseScope{group}, &f, args)
}

// FindUserExpenses pages through the expenses that match f in the groups
// given (the user's current groups: the caller decides which the user may
// see), merged in the order of FindExpenses.
func (s *Store) FindUserExpenses(ctx context.Context, userID string, groups []ExpenseScope, f ExpenseFilter, args PageArgs) (Page[Expense], error) {
	return s.findExpenses(ctx, "find-user-expenses:"+userID+":"+f.Fingerprint(), groups, &f, args)
}

// findConcurrency bounds the Queries a search runs at once: one per group
// whose candidates ran out.
const findConcurrency = 8

// maxFindChunk bounds the items one read of a group asks for.
const maxFindChunk = 1000

// findKeys are the keys of a search's cursor: the position's sort key alone,
// which every group's Query starts after.
var findKeys = []string{attrSK}

func (s *Store) findExpenses(ctx context.Context, list string, groups []ExpenseScope, f *ExpenseFilter, args PageArgs) (Page[Expense], error) {
	first := min(max(args.First, 0), MaxPageSize)
	after := ""
	if args.After != "" {
		keys, err := s.cursors.decode(list, args.After, 1)
		if err != nil {
			return Page[Expense]{}, err
		}
		if err := checkFindKey(keys[0], f); err != nil {
			return Page[Expense]{}, err
		}
		after = keys[0][attrSK]
	}
	r := &findRun{s: s, f: f, now: s.now(), comments: map[string]map[string][]string{}}
	sources := make([]*findSource, len(groups))
	for i, g := range groups {
		sources[i] = r.source(g, after)
	}
	matches, err := r.run(ctx, sources, first)
	if err != nil {
		return Page[Expense]{}, err
	}
	page := Page[Expense]{HasNext: len(matches) > first, HasPrevious: args.After != ""}
	for _, c := range matches[:min(len(matches), first)] {
		page.Items = append(page.Items, *c.e)
		page.Cursors = append(page.Cursors, s.cursors.at(list, map[string]string{attrSK: c.pos}))
	}
	return page, nil
}

// checkFindKey refuses a cursor whose position is not of the list's kind.
func checkFindKey(key map[string]string, f *ExpenseFilter) error {
	pos, ok := key[attrSK]
	prefix := prefixTx
	switch {
	case f.dated():
		prefix = prefixDay
	case f.Deleted:
		prefix = prefixDeleted
	}
	if len(key) != len(findKeys) || !ok || !strings.HasPrefix(pos, prefix) {
		return fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	return nil
}

// findRun is one search: its filter, and the comments read for its words.
type findRun struct {
	s        *Store
	f        *ExpenseFilter
	now      time.Time
	comments map[string]map[string][]string // per group, each expense's comments' words
}

// sourceKind is how a group's candidates are read.
type sourceKind int

const (
	// byItem: Query the expenses (or tombstones) in key order; each item
	// read is the candidate itself.
	byItem sourceKind = iota
	// byDay: Query the day items of a range; each names an expense to read
	// by key.
	byDay
	// whole: read every expense (or tombstone) at once and order them by
	// day: a range of days in a group whose days are not kept, or in its
	// tombstones.
	whole
)

// findSource is one group's candidates, in list order.
type findSource struct {
	group ExpenseScope
	kind  sourceKind
	q     listQuery
	start map[string]types.AttributeValue // where the next Query starts
	after string                          // the cursor's position ("" from the start)
	buf   []*candidate
	done  bool
	// taken and kept count the candidates merged and those that matched,
	// to size the next read.
	taken, kept int
}

// candidate is one expense a source offers, at its position.
type candidate struct {
	pos string
	src *findSource
	e   *Expense // nil when it is gone, or not read yet
	// key is the expense's table key while a day item's expense is not
	// read yet.
	key map[string]types.AttributeValue
}

// source is the reader of one group's candidates after the position after.
func (r *findRun) source(g ExpenseScope, after string) *findSource {
	pk := groupPK(g.GroupID)
	src := &findSource{group: g, after: after, q: listQuery{list: "find:" + g.GroupID, keyCond: tablePrefixCond, values: prefixValues(pk, prefixTx)}}
	if r.f.Deleted {
		src.q.values = prefixValues(pk, prefixDeleted)
	}
	switch {
	case r.f.dated() && g.DaysKept && !r.f.Deleted:
		from, to := dayRange(r.f.From, r.f.To)
		src.kind, src.q.keyCond = byDay, tableRangeCond
		src.q.values = map[string]types.AttributeValue{":pk": str(pk), ":from": str(from), ":to": str(to)}
	case r.f.dated():
		src.kind = whole
	}
	if after != "" && src.kind != whole {
		src.start = tableKey(pk, after)
	}
	return src
}

// run merges the sources' candidates and keeps those that match until it
// has first+1 matches or none are left.
func (r *findRun) run(ctx context.Context, sources []*findSource, first int) ([]*candidate, error) {
	want := first + 1
	// Without conditions beyond the days, a day item is a match: the one
	// past the page needs no read of its expense to say another follows.
	trusted := !r.f.checks()
	var matches []*candidate
	taken := 0
	for len(matches) < want {
		need := want - len(matches)
		if err := r.fill(ctx, sources, need); err != nil {
			return nil, err
		}
		// As many as should hold the matches still needed, by the share
		// of those merged so far that matched: one batch of expenses read
		// by key (at most MaxBatchGet) rather than one per few matches.
		batch := take(sources, scaled(need, taken, len(matches), MaxBatchGet))
		if len(batch) == 0 {
			break
		}
		taken += len(batch)
		var unread []*candidate
		for i, c := range batch {
			if c.key != nil && !(trusted && len(matches)+i >= first) {
				unread = append(unread, c)
			}
		}
		if err := r.read(ctx, unread); err != nil {
			return nil, err
		}
		for _, c := range batch {
			if c.key != nil && trusted {
				if len(matches) >= first {
					matches = append(matches, c) // past the page: it stands for the next
					continue
				}
				// On the page after all, an earlier one being gone.
				if err := r.read(ctx, []*candidate{c}); err != nil {
					return nil, err
				}
			}
			ok, err := r.match(ctx, c)
			if err != nil {
				return nil, err
			}
			if ok {
				c.src.kept++
				matches = append(matches, c)
			}
		}
	}
	return matches, nil
}

// fill reads the next candidates of every source that has run out,
// findConcurrency at a time: need, or more when few of a source's
// candidates matched so far.
func (r *findRun) fill(ctx context.Context, sources []*findSource, need int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(findConcurrency)
	for _, src := range sources {
		if src.done || len(src.buf) > 0 {
			continue
		}
		n := scaled(need, src.taken, src.kept, maxFindChunk)
		g.Go(func() error { return r.fillSource(gctx, src, n) })
	}
	return g.Wait()
}

// scaled is how many candidates should hold need matches when kept of
// taken matched so far: need at first, at most limit.
func scaled(need, taken, kept, limit int) int {
	if taken == 0 {
		return need
	}
	return min(max(need*(taken+1)/(kept+1), need), limit)
}

// fillSource reads up to n of a source's next candidates.
func (r *findRun) fillSource(ctx context.Context, src *findSource, n int) error {
	s, pk := r.s, groupPK(src.group.GroupID)
	if src.kind == whole {
		items, err := s.collect(ctx, src.q, nil, math.MaxInt32)
		if err != nil {
			return err
		}
		es, err := decodeAll(items, (*expenseRecord).expense)
		if err != nil {
			return err
		}
		from, to := dayRange(r.f.From, r.f.To)
		for i := range es {
			pos := es[i].daySK()
			if pos >= from && pos <= to && (src.after == "" || pos < src.after) {
				src.buf = append(src.buf, &candidate{pos: pos, src: src, e: &es[i]})
			}
		}
		slices.SortFunc(src.buf, func(a, b *candidate) int { return strings.Compare(b.pos, a.pos) })
		src.done = true
		return nil
	}
	items, err := s.collect(ctx, src.q, src.start, n)
	if err != nil {
		return err
	}
	src.done = len(items) < n
	if len(items) > 0 {
		last := items[len(items)-1]
		src.start = tableKey(keyAttr(last, attrPK), keyAttr(last, attrSK))
	}
	for _, it := range items {
		c := &candidate{pos: keyAttr(it, attrSK), src: src}
		if src.kind == byDay {
			_, createdAt, id, ok := parseExpenseDaySK(c.pos)
			if !ok {
				return fmt.Errorf("group %s: malformed day item %q", src.group.GroupID, c.pos)
			}
			c.key = tableKey(pk, expenseSK(createdAt, id))
		} else {
			es, err := decodeAll([]map[string]types.AttributeValue{it}, (*expenseRecord).expense)
			if err != nil {
				return err
			}
			c.e = &es[0]
		}
		src.buf = append(src.buf, c)
	}
	return nil
}

// take merges up to n candidates off the sources, newest position first,
// stopping where a source has run out but has more to read (it is filled
// before the merge goes past it).
func take(sources []*findSource, n int) []*candidate {
	var out []*candidate
	for len(out) < n {
		var best *findSource
		for _, src := range sources {
			if len(src.buf) == 0 {
				if !src.done {
					return out
				}
				continue
			}
			if best == nil || src.buf[0].pos > best.buf[0].pos {
				best = src
			}
		}
		if best == nil {
			return out
		}
		out = append(out, best.buf[0])
		best.buf = best.buf[1:]
		best.taken++
	}
	return out
}

// read reads the expenses that candidates (day items) name, in one batch;
// one that is gone stays without its expense.
func (r *findRun) read(ctx context.Context, batch []*candidate) error {
	if len(batch) == 0 {
		return nil
	}
	keys := make([]map[string]types.AttributeValue, len(batch))
	for i, c := range batch {
		keys[i] = c.key
	}
	items, err := r.s.batchGet(ctx, keys)
	if err != nil {
		return err
	}
	es, err := decodeAll(items, (*expenseRecord).expense)
	if err != nil {
		return err
	}
	byKey := make(map[string]*Expense, len(es))
	for i := range es {
		byKey[expenseSK(formatTime(es[i].CreatedAt), es[i].ID)] = &es[i]
	}
	for _, c := range batch {
		c.e, c.key = byKey[keyAttr(c.key, attrSK)], nil
	}
	return nil
}

// match reports whether a candidate's expense meets the filter.
func (r *findRun) match(ctx context.Context, c *candidate) (bool, error) {
	e, f := c.e, r.f
	if e == nil {
		return false, nil // its day item outlived it for a moment
	}
	if f.Deleted != (e.DeletedAt != nil) || (f.Deleted && !e.Restorable(r.now)) {
		return false, nil
	}
	day := e.spentOn()
	if c.src.kind == byDay && c.pos != e.daySK() {
		return false, nil // not (or no longer) of this day
	}
	if (f.From != "" && day < f.From) || (f.To != "" && day > f.To) {
		return false, nil
	}
	if (f.Category != nil && e.Category != *f.Category) || (f.Currency != "" && e.Currency().Code() != f.Currency) {
		return false, nil
	}
	amount := e.Amount.Decimal()
	if (f.MinAmount != nil && amount.Cmp(*f.MinAmount) < 0) || (f.MaxAmount != nil && amount.Cmp(*f.MaxAmount) > 0) {
		return false, nil
	}
	if f.PayerID != "" && !slices.ContainsFunc(e.Payers, func(p Payment) bool { return p.UserID == f.PayerID }) {
		return false, nil
	}
	if f.ParticipantID != "" && !slices.ContainsFunc(e.Splits, func(sp Split) bool { return sp.UserID == f.ParticipantID && sp.Amount.Sign() > 0 }) {
		return false, nil
	}
	if len(f.Search) == 0 {
		return true, nil
	}
	rest := freetext.Unmatched(f.Search, freetext.Words(e.Description))
	if len(rest) == 0 {
		return true, nil
	}
	words, err := r.commentWords(ctx, e.GroupID)
	if err != nil {
		return false, err
	}
	return freetext.Matches(rest, words[e.ID]), nil
}

// commentWords are the words of every comment of the group, by expense:
// read once per search, and only when an expense's description has not
// every word searched for.
func (r *findRun) commentWords(ctx context.Context, groupID string) (map[string][]string, error) {
	if words, ok := r.comments[groupID]; ok {
		return words, nil
	}
	items, err := r.s.collect(ctx, listQuery{list: "find-comments:" + groupID, keyCond: tablePrefixCond,
		values: prefixValues(groupPK(groupID), prefixComment), forward: true}, nil, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	cs, err := decodeAll(items, (*commentRecord).comment)
	if err != nil {
		return nil, err
	}
	words := map[string][]string{}
	for _, c := range cs {
		if c.DeletedAt == nil {
			words[c.ExpenseID] = append(words[c.ExpenseID], freetext.Words(c.Body)...)
		}
	}
	r.comments[groupID] = words
	return words, nil
}
