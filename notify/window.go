package notify

import (
	"context"
	"errors"
	"time"

	"github.com/fracti/api/store"
)

// A group's batch window lives in the table (store.BatchWindow), not in one
// process: every instance that reads one of the group's events adds it to
// the open window, the instance that opened it owns it and, Window after it
// opened, sends it as one message and closes it in the transaction that
// writes its markers. The other instances send nothing for it; they watch
// it, and take it over when its owner's claim (the window and ClaimGrace)
// ends without a close: an owner that died loses no message, and the
// markers (written with the close) keep one from going out twice. Windows
// and claims run on the wall clock (time.Now), as the stream does, whatever
// Options.Now says of days and weeks.

// flight is this instance's part in one group's windows: the events taken
// from the stream and not yet in the window, and the window they joined,
// seen through until it is closed (by whoever owns it).
type flight struct {
	pending []int64
	wake    chan struct{}
	// pendingSince and windowSince are when the oldest pending event and
	// the oldest event in the window were taken (zero: none): Unfinished.
	pendingSince, windowSince time.Time
}

// windowRetry is the wait before a window's table work is tried again
// after a failure.
const windowRetry = time.Second

// watchFirst is how long past a window's end the instances that do not own
// it first look whether it was sent.
const watchFirst = time.Second

// watchMargin is how long past an owner's lease another instance looks
// again: the lease is compared on each instance's own clock.
const watchMargin = 100 * time.Millisecond

// fly runs the group's flight until nothing it took is left unsent, or ctx
// ends: it adds what the stream brought to the group's window and sees the
// window through (settle).
func (n *Notifier) fly(ctx context.Context, groupID string, f *flight) {
	defer n.flights.Done()
	var (
		w    store.BatchWindow
		have bool // a window to see through
		due  time.Time
	)
	defer func() {
		n.mu.Lock()
		if n.groups[groupID] == f {
			delete(n.groups, groupID)
		}
		n.mu.Unlock()
		if have && w.Owner == n.opts.Instance {
			n.release(ctx, groupID, w)
		}
	}()
	for {
		n.mu.Lock()
		seqs, since := f.pending, f.pendingSince
		f.pending, f.pendingSince = nil, time.Time{}
		if !have && len(seqs) == 0 {
			delete(n.groups, groupID) // under the lock: a later event starts a new flight
			n.mu.Unlock()
			return
		}
		if len(seqs) > 0 && (f.windowSince.IsZero() || since.Before(f.windowSince)) {
			f.windowSince = since
		}
		n.mu.Unlock()
		if len(seqs) > 0 {
			got, err := n.opts.Store.JoinWindow(ctx, groupID, destGroupChat, n.opts.Instance, seqs, time.Now(), n.lease())
			if err != nil {
				if ctx.Err() != nil {
					return // not joined: the stream is read again from before them
				}
				n.log().Error("notifier: a group's events could not join its batch window", "group", groupID, "err", err)
				n.putBack(f, seqs, since)
				if sleep(ctx, windowRetry) != nil {
					return
				}
				continue
			}
			if !have || got.ID != w.ID || got.Owner != w.Owner {
				due = n.dueOf(got)
			}
			w, have = got, true
		}
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
			continue
		case <-time.After(due.Sub(time.Now())):
		}
		done, next := n.settle(ctx, groupID, &w)
		if done {
			have = false
			n.mu.Lock()
			f.windowSince = time.Time{}
			n.mu.Unlock()
		}
		due = next
	}
}

// putBack puts seqs back at the head of the flight's pending events.
func (n *Notifier) putBack(f *flight, seqs []int64, since time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f.pending = append(seqs, f.pending...)
	f.pendingSince = since
}

// lease is how long a claim of a window lasts: its window and the grace.
func (n *Notifier) lease() time.Duration { return n.opts.Window + n.opts.ClaimGrace }

// dueOf is when this instance next looks at window w: the owner when its
// window ends; the others a moment after that (it is closed by then, as a
// rule, and their events are done with), and when the owner's lease ends.
func (n *Notifier) dueOf(w store.BatchWindow) time.Time {
	if w.Owner == n.opts.Instance {
		return w.Opened.Add(n.opts.Window)
	}
	if sent := w.Opened.Add(n.opts.Window + watchFirst); time.Now().Before(sent) && sent.Before(w.LeaseUntil) {
		return sent
	}
	return w.LeaseUntil.Add(watchMargin)
}

// settle looks at the group's window *w when due: done when it was closed
// (by this instance or another, or replaced by a newer one); otherwise its
// owner sends it (this instance, now, or after taking it over from an
// owner whose lease ended), and next is when to look again.
func (n *Notifier) settle(ctx context.Context, groupID string, w *store.BatchWindow) (done bool, next time.Time) {
	for range 3 {
		cur, found, err := n.opts.Store.Window(ctx, groupID, destGroupChat)
		if err != nil {
			break
		}
		if !found || cur.Closed || cur.ID != w.ID {
			return true, time.Time{} // every event it held was in a closed window
		}
		*w = cur
		now := time.Now()
		switch {
		case cur.Owner == n.opts.Instance && now.Before(cur.Opened.Add(n.opts.Window)):
			return false, cur.Opened.Add(n.opts.Window)
		case cur.Owner == n.opts.Instance:
			err = n.flush(ctx, groupID, cur)
			if err == nil {
				return true, time.Time{}
			}
		case now.After(cur.LeaseUntil):
			took, terr := n.opts.Store.TakeOverWindow(ctx, groupID, destGroupChat, n.opts.Instance, cur, now, n.lease())
			if terr != nil {
				err = terr
				break
			}
			if took {
				n.log().Info("notifier: took over a group's batch window whose owner did not send it", "group", groupID, "owner", cur.Owner)
			}
			continue // read again: ours now, or someone else's
		default:
			return false, n.dueOf(cur)
		}
		if ctx.Err() == nil {
			n.log().Error("notifier: a group's batch window was not sent; trying again", "group", groupID, "err", err)
		}
		break
	}
	return false, time.Now().Add(windowRetry)
}

// flush sends the window this instance owns: its events' lines in one
// chat message, claimed by the markers written with the window's close,
// and then their direct messages. Events that join while it reads make it
// read again; a window taken over meanwhile is the new owner's to send. It
// fails only when the window could not be closed (it is tried again); what
// fails after the close is logged, a failed send being a dead letter.
func (n *Notifier) flush(ctx context.Context, groupID string, w store.BatchWindow) error {
	lines := map[int64]string{}
	var claimed []int64
	for {
		events, err := n.opts.Store.GetEvents(ctx, groupID, w.Seqs)
		if err != nil {
			return err
		}
		groups, err := n.opts.Store.GetGroups(ctx, []string{groupID})
		if err != nil {
			return err
		}
		var (
			g    *store.Group
			subj subjects
			seqs []int64
		)
		if len(groups) > 0 && groups[0] != nil {
			g = groups[0]
			if subj, err = n.readSubjects(ctx, groupID, events); err != nil {
				return err
			}
			if g.ChatID != "" {
				for i := range events {
					if l := subj.line(g.ChatLanguage, &events[i]); l != "" {
						lines[events[i].Seq] = l
						seqs = append(seqs, events[i].Seq)
					}
				}
			}
		} // else the group is gone: the window closes with nothing to say
		got, err := n.opts.Store.CloseWindow(ctx, groupID, destGroupChat, n.opts.Instance, w, seqs, time.Now())
		claimed = append(claimed, got...)
		if errors.Is(err, store.ErrWindowChanged) {
			cur, found, rerr := n.opts.Store.Window(ctx, groupID, destGroupChat)
			if rerr == nil && found && !cur.Closed && cur.ID == w.ID && cur.Owner == n.opts.Instance {
				w = cur // more events joined: read them too
				continue
			}
			// Taken over: its new owner sends it (what was claimed here,
			// past 99 markers, goes out all the same).
			n.sent(ctx, groupID, n.sendToChat(ctx, g, lines, claimed))
			return nil
		}
		if err != nil {
			n.sent(ctx, groupID, n.sendToChat(ctx, g, lines, claimed))
			return err
		}
		if g != nil {
			n.sent(ctx, groupID, errors.Join(n.sendToChat(ctx, g, lines, claimed), n.sendDirect(ctx, g, events, subj)))
		}
		return nil
	}
}

// sent logs what a closed window's sends left undone (kept as dead
// letters, or refused for good): the window is not sent again.
func (n *Notifier) sent(ctx context.Context, groupID string, err error) {
	if err != nil && ctx.Err() == nil {
		n.log().Error("notifier: a group's changes were not all sent", "group", groupID, "err", err)
	}
}

// release gives up the window this instance owns as it stops, so that the
// instance that next reads one of its events takes it over at once.
func (n *Notifier) release(ctx context.Context, groupID string, w store.BatchWindow) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), windowRetry)
	defer cancel()
	if err := n.opts.Store.ReleaseWindow(ctx, groupID, destGroupChat, n.opts.Instance, w, time.Now()); err != nil {
		n.log().Warn("notifier: a group's batch window was not released; it is taken over when its claim ends", "group", groupID, "err", err)
	}
}
