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
)

// Order passes each group's events on in the group's sequence, each once,
// whichever way they came (the writer's own commit, the broker, the stream,
// the fallback reader). A group's delivered high-water mark says what was
// passed on: an event at or below it is a repeat and dropped; the next one
// goes at once; one beyond it waits Wait for the missing ones, which are then
// read from the table (the activity log is the source of truth) and passed
// on in order. The first event seen of a group sets its mark.
type Order struct {
	// Out receives the events, in each group's order (called with Order's
	// lock held, so that two callers never interleave a group).
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

// groupOrder is one group's mark and the events waiting beyond it.
type groupOrder struct {
	mark    int64
	pending map[int64]store.Event
	since   time.Time // when the oldest pending event started waiting
	used    time.Time
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
	defer o.mu.Unlock()
	if o.groups == nil {
		o.groups = map[string]*groupOrder{}
	}
	now := o.now()
	var out, full []store.Event
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
			// a repeat
		case ev.Seq == g.mark+1:
			out = append(out, ev)
			g.mark = ev.Seq
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
				full = append(full, ev)
			}
		}
	}
	if len(out) > 0 {
		o.Out(ctx, out)
	}
	if len(full) > 0 {
		// Too much waits: make it due now.
		for _, ev := range full {
			o.groups[ev.GroupID].since = time.Time{}
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
		g.mark = ev.Seq
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
	for id, g := range o.groups {
		if len(g.pending) == 0 && (all || now.Sub(g.used) >= idle) {
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
		if len(g.pending) > 0 && now.Sub(g.since) >= o.wait() {
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
	defer o.mu.Unlock()
	g := o.groups[id]
	if g == nil || len(g.pending) == 0 {
		return
	}
	now := o.now()
	var out []store.Event
	for _, ev := range read {
		if ev.Seq == g.mark+1 {
			out = append(out, ev)
			g.mark = ev.Seq
		}
	}
	out = g.drain(out)
	if len(g.pending) > 0 && (o.Changes == nil || now.Sub(g.since) >= gapGiveUp*o.wait()) {
		// The gap cannot be read: pass on what waited rather than stall.
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
			g.mark = seq
		}
		clear(g.pending)
	}
	if len(out) > 0 {
		o.Out(ctx, out)
	}
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
