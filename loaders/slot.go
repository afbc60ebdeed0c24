package loaders

import (
	"context"
	"sync"

	"github.com/fracti/api/store"
)

// Slot holds loaders that are chosen after the context carrying them is
// made: a subscription's next event is known only once its stream yields
// it, and that event's loaders are the ones every subscriber of it shares.
// The first of Fill and the first lookup decides; fresh loaders are made
// when nothing filled it.
type Slot struct {
	once  sync.Once
	l     *Loaders
	fresh func() *Loaders
}

type slotKey struct{}

// WithSlot puts an empty slot on ctx; fresh makes the loaders used when it
// is looked up before it is filled.
func WithSlot(ctx context.Context, fresh func() *Loaders) (context.Context, *Slot) {
	s := &Slot{fresh: fresh}
	ctx = context.WithValue(ctx, ctxKey{}, (*Loaders)(nil)) // loaders further out are not these
	ctx = store.WithCurrentGroups(ctx, func(ctx context.Context, userID string) func() ([]string, error) {
		return s.get().currentGroupIDs(ctx, userID)
	})
	return context.WithValue(ctx, slotKey{}, s), s
}

// SlotFrom is ctx's slot, or nil.
func SlotFrom(ctx context.Context) *Slot {
	s, _ := ctx.Value(slotKey{}).(*Slot)
	return s
}

// Fill chooses the loaders l makes, unless loaders were chosen already.
func (s *Slot) Fill(l func() *Loaders) {
	s.once.Do(func() { s.l = l() })
}

// New makes fresh loaders, as the slot would.
func (s *Slot) New() *Loaders { return s.fresh() }

func (s *Slot) get() *Loaders {
	s.once.Do(func() { s.l = s.fresh() })
	return s.l
}
