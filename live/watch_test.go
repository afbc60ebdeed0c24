package live

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// watchLog records what a Watcher is told, in order.
type watchLog struct {
	mu  sync.Mutex
	log []string
}

func (w *watchLog) add(s string) { w.mu.Lock(); w.log = append(w.log, s); w.mu.Unlock() }

func (w *watchLog) WatchGroup(g string)   { w.add("+group " + g) }
func (w *watchLog) UnwatchGroup(g string) { w.add("-group " + g) }
func (w *watchLog) WatchUser(u string)    { w.add("+user " + u) }
func (w *watchLog) UnwatchUser(u string)  { w.add("-user " + u) }

func (w *watchLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.log
	w.log = nil
	return out
}

func TestHubTellsTheWatcherWhatItWatches(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true, "ben": true}, "h": {"ann": true}}}
	h := NewHub(m, 0, nil)
	w := &watchLog{}
	h.SetWatcher(w)
	ctx := context.Background()

	annG, err := h.SubscribeGroup(ctx, "ann", "g")
	require.NoError(t, err)
	require.Equal(t, []string{"+group g"}, w.take())
	benG, err := h.SubscribeGroup(ctx, "ben", "g")
	require.NoError(t, err)
	require.Empty(t, w.take(), "a second subscriber of a watched group changes nothing")

	annAll, err := h.SubscribeUser(ctx, "ann")
	require.NoError(t, err)
	got := w.take()
	require.Equal(t, "+user ann", got[0])
	require.ElementsMatch(t, []string{"+user ann", "+group h"}, got, "g is watched already")

	groups, users := h.Watched()
	slices.Sort(groups)
	require.Equal(t, []string{"g", "h"}, groups)
	require.Equal(t, []string{"ann"}, users)

	// Ann joins k: the joined event (on her user's channel) brings k in.
	m.set("k", "ann", true)
	h.Publish(ctx, []store.Event{{GroupID: "k", Seq: 1, Type: store.EventMemberJoined,
		Subject: store.Subject{Kind: store.SubjectMember, ID: "ann"}}})
	require.Equal(t, []string{"+group k"}, w.take())
	// Ann leaves h: nobody here may receive it any more.
	m.set("h", "ann", false)
	h.Publish(ctx, events("h", 1, 1))
	require.Equal(t, []string{"-group h"}, w.take())

	annG.Close()
	benG.Close()
	require.Empty(t, w.take(), "ann's myEvents still receives g")
	annAll.Close()
	got = w.take()
	require.ElementsMatch(t, []string{"-user ann", "-group g", "-group k"}, got)
	groups, users = h.Watched()
	require.Empty(t, groups)
	require.Empty(t, users)
	annAll.Close()
	require.Empty(t, w.take(), "closing twice tells nothing")
}

func TestHubTellsTheWatcherWhenMembershipEndsASubscription(t *testing.T) {
	m := &members{groups: map[string]map[string]bool{"g": {"ann": true}}}
	h := NewHub(m, 0, nil)
	w := &watchLog{}
	h.SetWatcher(w)
	_, err := h.SubscribeGroup(context.Background(), "ann", "g")
	require.NoError(t, err)
	m.set("g", "ann", false)
	h.Publish(context.Background(), events("g", 1, 1))
	require.Equal(t, []string{"+group g", "-group g"}, w.take())
}
