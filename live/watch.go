package live

import "sync"

// Watcher is told which groups and users have local subscribers, so that a
// broker subscribes this instance to their channels only. Its methods are
// called outside the hub's lock, one at a time and in the order the changes
// happened, and must not block (a broker queues the (un)subscribe).
type Watcher interface {
	// WatchGroup: the first local subscription that may receive this
	// group's events appeared.
	WatchGroup(groupID string)
	// UnwatchGroup: the last one went.
	UnwatchGroup(groupID string)
	// WatchUser: the user's first local myEvents subscription appeared.
	WatchUser(userID string)
	// UnwatchUser: their last one went.
	UnwatchUser(userID string)
}

// watchChange is one change of what the hub watches, queued under the hub's
// lock and told to the Watcher after it.
type watchChange struct {
	group, user string // one of them
	on          bool
}

// watching queues and tells the Watcher the changes, in order.
type watching struct {
	w       Watcher
	tell    sync.Mutex // held while telling, so that changes go out in order
	pending []watchChange
}

// SetWatcher sets who is told of the groups and users watched; call it
// before any subscription.
func (h *Hub) SetWatcher(w Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watch.w = w
}

// Watched lists the groups and users that have local subscribers now (to
// subscribe to them again after a broker reconnects).
func (h *Hub) Watched() (groups, users []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for g := range h.byGroup {
		groups = append(groups, g)
	}
	for g := range h.inGroup {
		if h.byGroup[g] == nil {
			groups = append(groups, g)
		}
	}
	for u := range h.byUser {
		users = append(users, u)
	}
	return groups, users
}

// groupWatched reports whether a subscription may receive the group's
// events; h.mu is held.
func (h *Hub) groupWatched(groupID string) bool {
	return len(h.byGroup[groupID]) > 0 || len(h.inGroup[groupID]) > 0
}

// addGroupLocked adds s to m (byGroup or inGroup) under groupID, and queues
// WatchGroup if it is the group's first subscription; h.mu is held.
func (h *Hub) addGroupLocked(m map[string]map[*Subscription]struct{}, groupID string, s *Subscription) {
	if !h.groupWatched(groupID) {
		h.queueLocked(watchChange{group: groupID, on: true})
	}
	add(m, groupID, s)
}

// removeGroupLocked removes s from m under groupID, and queues UnwatchGroup
// if it was the group's last subscription; h.mu is held.
func (h *Hub) removeGroupLocked(m map[string]map[*Subscription]struct{}, groupID string, s *Subscription) {
	_, had := m[groupID][s]
	remove(m, groupID, s)
	if had && !h.groupWatched(groupID) {
		h.queueLocked(watchChange{group: groupID})
	}
}

// addUserLocked adds a myEvents subscription, queueing WatchUser for the
// user's first; h.mu is held.
func (h *Hub) addUserLocked(s *Subscription) {
	if len(h.byUser[s.userID]) == 0 {
		h.queueLocked(watchChange{user: s.userID, on: true})
	}
	add(h.byUser, s.userID, s)
}

// removeUserLocked removes a myEvents subscription, queueing UnwatchUser
// for the user's last; h.mu is held.
func (h *Hub) removeUserLocked(s *Subscription) {
	_, had := h.byUser[s.userID][s]
	remove(h.byUser, s.userID, s)
	if had && len(h.byUser[s.userID]) == 0 {
		h.queueLocked(watchChange{user: s.userID})
	}
}

func (h *Hub) queueLocked(c watchChange) {
	if h.watch.w != nil {
		h.watch.pending = append(h.watch.pending, c)
	}
}

// tellWatcher tells the Watcher the queued changes; call it after h.mu is
// released.
func (h *Hub) tellWatcher() {
	h.watch.tell.Lock()
	defer h.watch.tell.Unlock()
	for {
		h.mu.Lock()
		changes, w := h.watch.pending, h.watch.w
		h.watch.pending = nil
		h.mu.Unlock()
		if len(changes) == 0 {
			return
		}
		for _, c := range changes {
			switch {
			case c.group != "" && c.on:
				w.WatchGroup(c.group)
			case c.group != "":
				w.UnwatchGroup(c.group)
			case c.on:
				w.WatchUser(c.user)
			default:
				w.UnwatchUser(c.user)
			}
		}
	}
}
