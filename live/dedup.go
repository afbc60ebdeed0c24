package live

import (
	"sync"

	"github.com/fracti/api/store"
)

// Dedup passes each event on once, whichever way it came (the writer's
// own commit, the broker, the stream, the fallback reader): it remembers
// the sequence numbers of each group's recent events as a set, not a
// high-water mark, since events of different writers may arrive out of
// order.
type Dedup struct {
	keep, maxGroups int

	mu     sync.Mutex
	groups map[string]*recentSeqs
}

// Defaults of NewDedup.
const (
	DefaultDedupKeep   = 1024  // sequence numbers remembered per group
	DefaultDedupGroups = 50000 // groups remembered at once
)

// recentSeqs is a group's last keep sequence numbers passed on: a set, and
// a ring that says which to forget next.
type recentSeqs struct {
	seen map[int64]struct{}
	ring []int64
	next int
}

// NewDedup remembers keep sequence numbers per group for up to maxGroups
// groups (0: the defaults); past maxGroups it forgets every group at once,
// which can let a repeat through but never drops an event.
func NewDedup(keep, maxGroups int) *Dedup {
	if keep <= 0 {
		keep = DefaultDedupKeep
	}
	if maxGroups <= 0 {
		maxGroups = DefaultDedupGroups
	}
	return &Dedup{keep: keep, maxGroups: maxGroups, groups: map[string]*recentSeqs{}}
}

// Fresh returns the events not passed on before, in their order, and
// remembers them as passed on.
func (d *Dedup) Fresh(events []store.Event) []store.Event {
	d.mu.Lock()
	defer d.mu.Unlock()
	fresh := events[:0:0]
	for _, ev := range events {
		r := d.groups[ev.GroupID]
		if r == nil {
			if len(d.groups) >= d.maxGroups {
				clear(d.groups)
			}
			r = &recentSeqs{seen: map[int64]struct{}{}, ring: make([]int64, 0, 8)}
			d.groups[ev.GroupID] = r
		}
		if _, dup := r.seen[ev.Seq]; dup {
			continue
		}
		if len(r.ring) < d.keep {
			r.ring = append(r.ring, ev.Seq)
		} else {
			delete(r.seen, r.ring[r.next])
			r.ring[r.next] = ev.Seq
			r.next = (r.next + 1) % d.keep
		}
		r.seen[ev.Seq] = struct{}{}
		fresh = append(fresh, ev)
	}
	return fresh
}
