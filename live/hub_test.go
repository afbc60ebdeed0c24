package live

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// members is who is in which group, and an error to fail checks with.
type members struct {
	mu     sync.Mutex
	groups map[string]map[string]bool
	fail   error
	checks int
}

func (m *members) ActiveMembers(_ context.Context, groupID string, userIDs []string) (map[string]bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checks++
	if m.fail != nil {
		return nil, m.fail
	}
	out := map[string]bool{}
	for _, u := range userIDs {
		out[u] = m.groups[groupID][u]
	}
	return out, nil
}

func (m *members) UserGroupIDs(_ context.Context, userID string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for g, us := range m.groups {
		if us[userID] {
			ids = append(ids, g)
		}
	}
	return ids, nil
}

func (m *members) set(groupID, userID string, in bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.groups[groupID] == nil {
		m.groups[groupID] = map[string]bool{}
	}
	m.groups[groupID][userID] = in
}

func events(groupID string, from, to int64) []store.Event {
	var out []store.Event
	for seq := from; seq <= to; seq++ {
		out = append(out, store.Event{GroupID: groupID, Seq: seq, Type: store.EventExpenseCreated})
	}
	return out
}

func drain(s *Subscription) []int64 {
	var seqs []int64
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				return seqs
			}
			seqs = append(seqs, ev.Seq)
		default:
			return seqs
		}
	}
}

func TestHubDropsASlowConsumerAndNobodyElse(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true, "ben": true}}}
	h := NewHub(m, 3, nil)
	var dropped []error
	slowCtx := WithConnection(context.Background(), &Connection{Drop: func(err error) { dropped = append(dropped, err) }})
	slow, err := h.SubscribeGroup(slowCtx, "ann", "g")
	require.NoError(t, err)
	fast, err := h.SubscribeGroup(context.Background(), "ben", "g")
	require.NoError(t, err)

	h.Publish(context.Background(), events("g", 1, 2))
	require.Equal(t, []int64{1, 2}, drain(fast))
	// Ann reads nothing: the third event fills her buffer, the fourth overflows it.
	h.Publish(context.Background(), events("g", 3, 4))
	require.Equal(t, []int64{3, 4}, drain(fast))
	require.Len(t, dropped, 1)
	require.ErrorIs(t, dropped[0], ErrSlowConsumer)
	require.Equal(t, []int64{1, 2, 3}, drain(slow), "what was buffered, then the end")
	_, open := <-slow.Events()
	require.False(t, open)
	require.Equal(t, 1, h.Count())
}

func TestHubFailsClosedWhenMembershipCannotBeRead(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	sub, err := h.SubscribeGroup(context.Background(), "ann", "g")
	require.NoError(t, err)
	m.fail = errors.New("table unreachable")
	h.Publish(context.Background(), events("g", 1, 1))
	require.Empty(t, drain(sub))
	m.fail = nil
	h.Publish(context.Background(), events("g", 2, 2))
	require.Equal(t, []int64{2}, drain(sub))
}

func TestHubChecksMembershipOncePerGroupBatch(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true, "ben": true}, "h": {"ann": true}}}
	h := NewHub(m, 0, nil)
	for _, u := range []string{"ann", "ben"} {
		_, err := h.SubscribeGroup(context.Background(), u, "g")
		require.NoError(t, err)
	}
	_, err := h.SubscribeUser(context.Background(), "ann")
	require.NoError(t, err)
	m.checks = 0
	h.Publish(context.Background(), append(events("g", 1, 5), events("h", 1, 3)...))
	require.Equal(t, 2, m.checks, "one check for g's five events (three subscriptions), one for h's")
	h.Publish(context.Background(), events("other", 1, 10))
	require.Equal(t, 2, m.checks, "a group nobody here follows costs nothing")
}

func TestHubEndsSubscriptionsWhoseCredentialNoLongerHolds(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	revoked := errors.New("access token revoked")
	var allowed error
	var dropped error
	ctx := WithConnection(context.Background(), &Connection{
		Allowed: func() error { return allowed },
		Drop:    func(err error) { dropped = err },
	})
	sub, err := h.SubscribeGroup(ctx, "ann", "g")
	require.NoError(t, err)
	h.Publish(context.Background(), events("g", 1, 1))
	require.Equal(t, []int64{1}, drain(sub))
	allowed = revoked
	h.Publish(context.Background(), events("g", 2, 2))
	require.Empty(t, drain(sub))
	require.ErrorIs(t, dropped, revoked)
	require.Zero(t, h.Count())
}

func TestHubLimitsSubscriptionsPerConnection(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	ctx := WithConnection(context.Background(), &Connection{MaxSubscriptions: 2})
	a, err := h.SubscribeGroup(ctx, "ann", "g")
	require.NoError(t, err)
	_, err = h.SubscribeUser(ctx, "ann")
	require.NoError(t, err)
	_, err = h.SubscribeGroup(ctx, "ann", "g")
	require.ErrorIs(t, err, ErrTooManySubscriptions)
	a.Close()
	_, err = h.SubscribeGroup(ctx, "ann", "g")
	require.NoError(t, err, "a closed subscription frees its slot")

	_, err = h.SubscribeGroup(context.Background(), "eve", "g")
	require.ErrorIs(t, err, ErrNotMember)
}

func TestHubMyEventsFollowsJoinsAndLeaves(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	sub, err := h.SubscribeUser(context.Background(), "ann")
	require.NoError(t, err)
	// Ann joins h: the join event itself brings her subscription in.
	m.set("h", "ann", true)
	h.Publish(context.Background(), []store.Event{{GroupID: "h", Seq: 4, Type: store.EventMemberJoined,
		Subject: store.Subject{Kind: store.SubjectMember, ID: "ann"}}})
	h.Publish(context.Background(), events("h", 5, 5))
	require.Equal(t, []int64{4, 5}, drain(sub))
	m.set("g", "ann", false)
	h.Publish(context.Background(), events("g", 9, 9))
	h.Publish(context.Background(), events("g", 10, 10))
	require.Empty(t, drain(sub))
	require.Equal(t, 1, h.Count(), "leaving one group does not end the subscription")
}

func TestUserConnectionsLimit(t *testing.T) {
	u := &UserConnections{Max: 2}
	r1, err := u.Open("ann")
	require.NoError(t, err)
	_, err = u.Open("ann")
	require.NoError(t, err)
	_, err = u.Open("ann")
	require.ErrorIs(t, err, ErrTooManyConnections)
	_, err = u.Open("ben")
	require.NoError(t, err)
	r1()
	r1() // releasing twice frees one slot
	_, err = u.Open("ann")
	require.NoError(t, err)
	_, err = u.Open("ann")
	require.ErrorIs(t, err, ErrTooManyConnections)
}
