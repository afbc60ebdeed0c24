package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/fracti/api/store"
)

// Members tells who may see a group's events; the store implements it.
type Members interface {
	// ActiveMembers reports which of the users are active members of the group.
	ActiveMembers(ctx context.Context, groupID string, userIDs []string) (map[string]bool, error)
	// UserGroupIDs lists the groups the user is an active member of.
	UserGroupIDs(ctx context.Context, userID string) ([]string, error)
}

var (
	// ErrNotMember means the user is not (or no longer) a member of the group.
	ErrNotMember = errors.New("not a member of the group")
	// ErrUnavailable means this instance is not reading the table's stream,
	// so it cannot deliver events.
	ErrUnavailable = errors.New("live updates are unavailable")
	// ErrSlowConsumer means a subscriber did not take its events as fast as
	// they came, and was dropped rather than buffered without bound.
	ErrSlowConsumer = errors.New("slow consumer")
)

// DefaultBuffer is how many events a subscription may have waiting.
const DefaultBuffer = 256

// checkTimeout bounds the membership check of one group's events.
const checkTimeout = 5 * time.Second

// Hub hands the events this instance reads from the stream to its
// subscriptions: a group's subscribers and the subscribers of every event of
// their own groups. Membership is read again for every batch of a group's
// events, so a member who leaves, or is removed by any other path, receives
// nothing after.
type Hub struct {
	// Status, when set, says why events cannot be delivered (the stream is
	// not being read); subscribing then fails with its error.
	Status func() error

	members Members
	checks  memberChecks // new subscriptions' membership, read together
	buffer  int
	log     *slog.Logger

	mu      sync.Mutex
	byGroup map[string]map[*Subscription]struct{} // groupEvents subscriptions by group
	byUser  map[string]map[*Subscription]struct{} // myEvents subscriptions by user
	// inGroup holds myEvents subscriptions by the groups their user is in.
	inGroup map[string]map[*Subscription]struct{}
	count   int
	watch   watching     // who is told what is watched (watch.go)
	recent  recentShared // what channel subscribers of recent events share (sink.go)
	fanout  fanoutObserver
}

// NewHub returns a hub checking membership with members; each subscription
// may have buffer events waiting (0: DefaultBuffer).
func NewHub(members Members, buffer int, log *slog.Logger) *Hub {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	if log == nil {
		log = slog.Default()
	}
	return &Hub{members: members, checks: memberChecks{members: members}, buffer: buffer, log: log,
		byGroup: map[string]map[*Subscription]struct{}{}, byUser: map[string]map[*Subscription]struct{}{},
		inGroup: map[string]map[*Subscription]struct{}{}}
}

// Subscription is one subscriber's stream of events.
type Subscription struct {
	hub     *Hub
	userID  string
	groupID string            // "" for every group of the user
	groups  map[string]bool   // the user's groups (every-group subscriptions)
	events  chan *store.Event // nil with a sink
	sink    Sink
	conn    *Connection
	ended   bool
	dropped bool // it ends because its connection is dropped (h.mu)
}

// Events is the subscription's stream (nil when it has a Sink); it is
// closed when the subscription ends.
func (s *Subscription) Events() <-chan *store.Event { return s.events }

// Close ends the subscription (the subscriber went away).
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	s.hub.endLocked(s)
	s.hub.mu.Unlock()
	s.hub.tellWatcher()
}

// Count is how many subscriptions are open on this instance.
func (h *Hub) Count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count
}

// SubscribeGroup subscribes the user to the group's events, or returns
// ErrNotMember.
func (h *Hub) SubscribeGroup(ctx context.Context, userID, groupID string) (*Subscription, error) {
	if err := h.available(); err != nil {
		return nil, err
	}
	active, err := h.checks.isActive(ctx, groupID, userID)
	if err != nil {
		return nil, err
	}
	if !active {
		return nil, ErrNotMember
	}
	s, err := h.newSubscription(ctx, userID, groupID, nil)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.addGroupLocked(h.byGroup, groupID, s)
	h.count++
	h.mu.Unlock()
	h.tellWatcher()
	s.opened()
	return s, nil
}

// SubscribeUser subscribes the user to the events of every group they are
// in, including groups they join later.
func (h *Hub) SubscribeUser(ctx context.Context, userID string) (*Subscription, error) {
	if err := h.available(); err != nil {
		return nil, err
	}
	ids, err := h.members.UserGroupIDs(ctx, userID)
	if err != nil {
		return nil, err
	}
	groups := make(map[string]bool, len(ids))
	for _, id := range ids {
		groups[id] = true
	}
	s, err := h.newSubscription(ctx, userID, "", groups)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.addUserLocked(s)
	for id := range groups {
		h.addGroupLocked(h.inGroup, id, s)
	}
	h.count++
	h.mu.Unlock()
	h.tellWatcher()
	s.opened()
	return s, nil
}

// newSubscription takes a slot of ctx's connection for a new subscription.
func (h *Hub) newSubscription(ctx context.Context, userID, groupID string, groups map[string]bool) (*Subscription, error) {
	conn := connectionFrom(ctx)
	if err := conn.acquire(); err != nil {
		return nil, err
	}
	s := &Subscription{hub: h, userID: userID, groupID: groupID, groups: groups, conn: conn, sink: sinkFrom(ctx)}
	if s.sink == nil {
		s.events = make(chan *store.Event, h.buffer)
	}
	return s, nil
}

// available is nil when events are being read from the stream.
func (h *Hub) available() error {
	if h.Status == nil {
		return nil
	}
	if err := h.Status(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

func add(m map[string]map[*Subscription]struct{}, key string, s *Subscription) {
	set := m[key]
	if set == nil {
		set = map[*Subscription]struct{}{}
		m[key] = set
	}
	set[s] = struct{}{}
}

func remove(m map[string]map[*Subscription]struct{}, key string, s *Subscription) {
	if set := m[key]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(m, key)
		}
	}
}

// endLocked unregisters s and closes its stream; h.mu is held.
func (h *Hub) endLocked(s *Subscription) {
	if s.ended {
		return
	}
	s.ended = true
	if s.groupID != "" {
		h.removeGroupLocked(h.byGroup, s.groupID, s)
	} else {
		h.removeUserLocked(s)
		for id := range s.groups {
			h.removeGroupLocked(h.inGroup, id, s)
		}
	}
	h.count--
	if d, ok := s.sink.(DroppedSink); ok && s.dropped {
		d.Dropped()
	} else if s.sink != nil {
		s.sink.Ended()
	} else {
		close(s.events)
	}
	s.conn.release()
}

// Publish delivers events read from the stream, in their order. Events of
// one group are checked against its membership together.
func (h *Hub) Publish(ctx context.Context, events []store.Event) {
	for run := range GroupRuns(events) {
		h.publishGroup(ctx, run)
	}
}

// publishGroup delivers consecutive events of one group.
func (h *Hub) publishGroup(ctx context.Context, events []store.Event) {
	start := time.Now()
	groupID := events[0].GroupID
	subs := h.candidates(groupID, events)
	if len(subs) == 0 {
		return
	}
	seen := map[string]bool{}
	var users []string
	for _, s := range subs {
		if !seen[s.userID] {
			seen[s.userID] = true
			users = append(users, s.userID)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	active, err := h.members.ActiveMembers(ctx, groupID, users)
	if err != nil {
		// Fail closed: nobody gets events whose audience is unknown. They
		// stay in the log for Group.changes.
		h.log.Error("live updates: membership check failed; events not delivered", "group", groupID,
			"from", events[0].Seq, "to", events[len(events)-1].Seq, "err", err)
		return
	}
	// Ask the credential checks outside the lock: they may look a token up.
	denied := map[*Subscription]error{}
	for _, s := range subs {
		if active[s.userID] {
			if err := s.conn.allowed(); err != nil {
				denied[s] = err
			}
		}
	}
	var drops []func()
	shared := h.newShared(start) // what these events' subscribers share
	defer shared.Release()
	for _, s := range subs {
		if s.sink == nil { // a channel's reader finds it by the event (SharedFor)
			h.recent.put(events, shared)
			break
		}
	}
	h.mu.Lock()
	for _, s := range subs {
		if s.ended {
			continue
		}
		switch {
		case !active[s.userID] && s.groupID != "":
			h.endLocked(s) // left the group: the subscription completes
		case !active[s.userID]:
			delete(s.groups, groupID)
			h.removeGroupLocked(h.inGroup, groupID, s)
		case denied[s] != nil:
			s.dropped = true
			h.endLocked(s)
			drops = append(drops, s.dropper(denied[s]))
		default:
			if s.groups != nil && !s.groups[groupID] {
				s.groups[groupID] = true
				h.addGroupLocked(h.inGroup, groupID, s)
			}
			if !s.deliverLocked(events, shared) {
				s.dropped = true
				h.endLocked(s)
				drops = append(drops, s.dropper(ErrSlowConsumer))
			}
		}
	}
	h.mu.Unlock()
	h.tellWatcher()
	for _, drop := range drops {
		drop()
	}
}

// candidates are the subscriptions that may want the group's events: its
// subscribers, and every-group subscribers who are in it or join it in these
// events (by joining, or by creating it).
func (h *Hub) candidates(groupID string, events []store.Event) []*Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	var subs []*Subscription
	for s := range h.byGroup[groupID] {
		subs = append(subs, s)
	}
	for s := range h.inGroup[groupID] {
		subs = append(subs, s)
	}
	for _, ev := range events {
		if joiner, ok := ev.Joiner(); ok {
			for s := range h.byUser[joiner] {
				if !s.groups[groupID] && !slices.Contains(subs, s) {
					subs = append(subs, s)
				}
			}
		}
	}
	return subs
}

// deliverLocked queues the events without waiting; false means the buffer
// is full. h.mu is held.
func (s *Subscription) deliverLocked(events []store.Event, shared *Shared) bool {
	if s.sink != nil {
		return s.sink.Deliver(events, shared)
	}
	for i := range events {
		select {
		case s.events <- &events[i]:
		default:
			return false
		}
	}
	return true
}

func (s *Subscription) dropper(reason error) func() {
	return func() { s.conn.drop(reason) }
}

// HandleRecords publishes the activity events among stream records; it is
// the Tailer's Handle.
func (h *Hub) HandleRecords(ctx context.Context, records []Record) {
	if events := EventsOf(records, h.log); len(events) > 0 {
		h.Publish(ctx, events)
	}
}

// Tail returns a tailer that feeds the hub from the stream streamARN names,
// and makes the hub refuse subscriptions while that stream is not read. Set
// its Poll, Refresh and Log as needed, then Run it.
func (h *Hub) Tail(api StreamsAPI, streamARN func(context.Context) (string, error)) *Tailer {
	t := &Tailer{API: api, StreamARN: streamARN, Handle: h.HandleRecords, Log: h.log}
	h.Status = t.Err
	return t
}
