package live

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/fracti/api/store"
)

// Defaults of Order.
const (
	// DefaultGapWait is how long an event beyond the next one waits for the
	// missing ones to come by the broker or the stream before they are read
	// from the table.
	DefaultGapWait = 500 * time.Millisecond
	// DefaultOrderIdle is how long a group's mark is kept after its last event.
	DefaultOrderIdle = 10 * time.Minute
	// DefaultOrderGroups bounds the groups whose marks are kept at once.
	DefaultOrderGroups = 50000
	// DefaultOrderPending bounds the events waiting in one group: past it the
	// gap is read from the table at once.
	DefaultOrderPending = 256
	// gapGiveUp: a gap the table could not be read for in this many waits is
	// skipped, so that one group's trouble never stalls it for good.
	gapGiveUp = 20
	// lateWindow is how far below its group's mark an event not passed on
	// yet is still passed on when it comes late (the first event seen of a
	// group need not be its oldest; a skipped gap may still arrive).
	lateWindow = 64
	// pruneAfter is how long a group must have been idle before it is
	// forgotten to make room for others.
	pruneAfter = time.Minute
)

// Order passes each group's events on in the group's sequence, each once,
// whichever way they came (the writer's own commit, the broker, the stream,
// the fallback reader). A group's delivered high-water mark says what was
// passed on: an event at or below it is a repeat and dropped; the next one
// goes at once; one beyond it waits Wait for the missing ones, which are then
// read from the table (the activity log is the source of truth) and passed
// on in order. The first event seen of a group sets its mark; an event
// below the mark that was never passed on (older than the first one seen,
// or in a gap given up on) is passed on late rather than lost, once, within
// lateWindow of the mark.
type Order struct {
	// Out receives the events, in each group's order: a group's events go
	// out one call after another, never two at once, but Out is called
	// without Order's lock, so that a slow group holds up no other.
	Out func(ctx context.Context, events []store.Event)
	// Changes reads a group's events after seq, oldest first (nil: a gap
	// is skipped after Wait).
	Changes func(ctx context.Context, groupID string, after int64) ([]store.Event, error)
	// Wait is DefaultGapWait; Idle, MaxGroups and MaxPending are
	// DefaultOrderIdle, DefaultOrderGroups and DefaultOrderPending.
	Wait, Idle            time.Duration
	MaxGroups, MaxPending int
	// Now is the clock (nil: time.Now); Log reports gaps not filled.
	Now func() time.Time
	Log *slog.Logger

	mu     sync.Mutex
	groups map[string]*groupOrder
}

// groupOrder is one group's mark, the events waiting beyond it and those
// on their way out.
type groupOrder struct {
	mark    int64
	passed  uint64 // bit i: event mark-i was passed on
	pending map[int64]store.Event
	since   time.Time // when the oldest pending event started waiting
	due     bool      // too much waits: read the gap at the next Fill
	used    time.Time
	queue   []store.Event // passed on, not yet given to Out
	sending bool          // a caller is giving the queue to Out
}

// advance moves the mark to seq (above it), marking seq as passed on.
func (g *groupOrder) advance(seq int64) {
	if d := seq - g.mark; d >= lateWindow {
		g.passed = 0
	} else {
		g.passed <<= uint(d)
	}
	g.passed |= 1
	g.mark = seq
}

// late reports whether seq, at or below the mark, was never passed on and
// is close enough to be, and marks it passed.
func (g *groupOrder) late(seq int64) bool {
	i := g.mark - seq
	if i < 0 || i >= lateWindow || g.passed&(1<<uint(i)) != 0 {
		return false
	}
	g.passed |= 1 << uint(i)
	return true
}

func (o *Order) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *Order) wait() time.Duration {
	if o.Wait <= 0 {
		return DefaultGapWait
	}
	return o.Wait
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// Take passes on what of events is next in its group's order (and what
// waited for it), keeps what is beyond, and drops repeats.
func (o *Order) Take(ctx context.Context, events []store.Event) {
	o.mu.Lock()
	if o.groups == nil {
		o.groups = map[string]*groupOrder{}
	}
	now := o.now()
	var out []store.Event
	for _, ev := range events {
		g := o.groups[ev.GroupID]
		if g == nil {
			if len(o.groups) >= orDefault(o.MaxGroups, DefaultOrderGroups) {
				o.prune(now, true)
			}
			g = &groupOrder{mark: ev.Seq - 1}
			o.groups[ev.GroupID] = g
		}
		g.used = now
		switch {
		case ev.Seq <= g.mark:
			if g.late(ev.Seq) {
				out = append(out, ev)
			}
		case ev.Seq == g.mark+1:
			out = append(out, ev)
			g.advance(ev.Seq)
			out = g.drain(out)
		default:
			if g.pending == nil {
				g.pending = map[int64]store.Event{}
			}
			if len(g.pending) == 0 {
				g.since = now
			}
			g.pending[ev.Seq] = ev
			if len(g.pending) > orDefault(o.MaxPending, DefaultOrderPending) {
				g.due = true // too much waits: read the gap at once
			}
		}
	}
	o.emitLocked(ctx, out)
}

// emitLocked gives out to Out, each group's events in order, without
// holding o.mu while Out runs: a group's events join its queue, and the
// caller that finds nobody sending it sends it until it is empty. o.mu is
// held on entry and released on return.
func (o *Order) emitLocked(ctx context.Context, out []store.Event) {
	var mine []*groupOrder
	for _, ev := range out {
		g := o.groups[ev.GroupID]
		g.queue = append(g.queue, ev)
		if !g.sending {
			g.sending = true
			mine = append(mine, g)
		}
	}
	o.mu.Unlock()
	for _, g := range mine {
		for {
			o.mu.Lock()
			batch := g.queue
			g.queue = nil
			if len(batch) == 0 {
				g.sending = false
				o.mu.Unlock()
				break
			}
			o.mu.Unlock()
			o.Out(ctx, batch)
		}
	}
}

// drain appends the pending events that follow the mark, moving it.
func (g *groupOrder) drain(out []store.Event) []store.Event {
	for {
		ev, ok := g.pending[g.mark+1]
		if !ok {
			break
		}
		delete(g.pending, ev.Seq)
		out = append(out, ev)
		g.advance(ev.Seq)
	}
	for seq := range g.pending {
		if seq <= g.mark {
			delete(g.pending, seq)
		}
	}
	return out
}

// prune forgets the groups idle for Idle (all that wait for nothing, when
// all is set: too many groups).
func (o *Order) prune(now time.Time, all bool) {
	idle := o.Idle
	if idle <= 0 {
		idle = DefaultOrderIdle
	}
	if all {
		// Even then, a group that had an event within pruneAfter keeps its
		// mark: its repeats may still come.
		idle = min(idle, pruneAfter)
	}
	for id, g := range o.groups {
		if len(g.pending) == 0 && len(g.queue) == 0 && !g.sending && now.Sub(g.used) >= idle {
			delete(o.groups, id)
		}
	}
}

// Fill reads from the table the gaps that waited Wait and passes them on
// with what waited behind them; it forgets idle groups. Delivery calls it
// every half Wait.
func (o *Order) Fill(ctx context.Context) {
	o.mu.Lock()
	now := o.now()
	o.prune(now, false)
	due := map[string]int64{}
	for id, g := range o.groups {
		if len(g.pending) > 0 && (g.due || now.Sub(g.since) >= o.wait()) {
			due[id] = g.mark
		}
	}
	o.mu.Unlock()
	ids := make([]string, 0, len(due))
	for id := range due {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var read []store.Event
		var err error
		if o.Changes != nil {
			read, err = o.Changes(ctx, id, due[id])
		}
		if ctx.Err() != nil {
			return
		}
		o.fill(ctx, id, read, err)
	}
}

// fill passes on what the table had after the group's mark and what waited.
func (o *Order) fill(ctx context.Context, id string, read []store.Event, err error) {
	o.mu.Lock()
	g := o.groups[id]
	if g == nil || len(g.pending) == 0 {
		o.mu.Unlock()
		return
	}
	now := o.now()
	var out []store.Event
	for _, ev := range read {
		if ev.Seq == g.mark+1 {
			out = append(out, ev)
			g.advance(ev.Seq)
		}
	}
	out = g.drain(out)
	if len(out) > 0 && len(g.pending) > 0 {
		// The gap that waited longest is filled; what still waits waits
		// from now.
		g.since = now
	}
	g.due = len(g.pending) > orDefault(o.MaxPending, DefaultOrderPending)
	if len(g.pending) > 0 && (o.Changes == nil || now.Sub(g.since) >= gapGiveUp*o.wait()) {
		// The gap cannot be read: pass on what waited rather than stall (a
		// missing event that still comes is passed on late).
		if o.Log != nil {
			o.Log.Warn("live updates: a gap in a group's events could not be read from the table; skipped", "group", id, "after", g.mark, "err", err)
		}
		seqs := make([]int64, 0, len(g.pending))
		for seq := range g.pending {
			seqs = append(seqs, seq)
		}
		sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
		for _, seq := range seqs {
			out = append(out, g.pending[seq])
			g.advance(seq)
		}
		clear(g.pending)
		g.due = false
	}
	o.emitLocked(ctx, out)
}

// ChangesStore reads a group's activity log; *store.Store implements it.
type ChangesStore interface {
	SyncToken(groupID string, seq int64) string
	ListChanges(ctx context.Context, groupID, since string, first int) (store.Changes, error)
}

// TableChanges is Order.Changes on the table's activity log, a few pages at
// most (past them the rest is a gap again, read on the next round).
func TableChanges(s ChangesStore) func(ctx context.Context, groupID string, after int64) ([]store.Event, error) {
	return func(ctx context.Context, groupID string, after int64) ([]store.Event, error) {
		var events []store.Event
		since := s.SyncToken(groupID, after)
		for range 4 {
			page, err := s.ListChanges(ctx, groupID, since, store.MaxPageSize)
			if err != nil {
				return events, err
			}
			events = append(events, page.Events...)
			if !page.HasMore {
				break
			}
			since = page.Token
		}
		return events, nil
	}
}
