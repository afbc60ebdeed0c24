package loaders

import (
	"context"

	"github.com/fracti/api/store"
)

// MembersByKey are the memberships these keys name, in their order, with an
// error per key (nil when every read succeeded): what a batch resolver
// needs to answer every parent of a list at once, failing only the parents
// whose member could not be read. Like member, it answers from a group's
// roster when that was started and can tell; the memberships the rosters
// cannot tell, and those of groups whose roster was not started, are all
// loaded by key in one batch window, as they were when every parent waited
// in a goroutine of its own.
func MembersByKey(ctx context.Context, keys []store.MemberKey) ([]*store.Member, []error) {
	l := from(ctx)
	out := make([]*store.Member, len(keys))
	var errs []error
	fail := func(i int, err error) {
		if errs == nil {
			errs = make([]error, len(keys))
		}
		errs[i] = err
	}
	byKey := make([]func() (*store.Member, error), len(keys))
	rosters := make([]*future[*store.Roster], len(keys))
	for i, k := range keys {
		if f := lookup(&l.started.mu, &l.started.rosters, k.GroupID); f != nil {
			rosters[i] = f
			continue
		}
		th := l.items.Load(ctx, k.Item())
		byKey[i] = func() (*store.Member, error) { return item(th, memberOf) }
	}
	for i, f := range rosters {
		if f == nil {
			continue
		}
		r, err := f.get(ctx)
		if err != nil {
			fail(i, err)
			continue
		}
		if m, known := r.Member(keys[i].UserID); known {
			out[i] = m
			continue
		}
		th := l.items.Load(ctx, keys[i].Item())
		byKey[i] = func() (*store.Member, error) { return item(th, memberOf) }
	}
	for i, th := range byKey {
		if th == nil {
			continue
		}
		m, err := th()
		if err != nil {
			fail(i, err)
			continue
		}
		out[i] = m
	}
	return out, errs
}
