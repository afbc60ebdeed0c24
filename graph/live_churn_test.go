package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// Connections subscribing, completing, resubscribing and closing (cleanly
// or not) while events are published leave no subscription in the hub.
func TestLiveChurnOfSubscriptionsWhilePublishingLeavesNone(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	changes, err := api.Store.ListChanges(context.Background(), g, "", 100)
	require.NoError(t, err)
	evs := changes.Events
	stop := make(chan struct{})
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			batch := append([]store.Event(nil), evs...)
			api.Live.Publish(context.Background(), batch)
		}
	}()
	const q1 = `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type actor { name notificationSettings { muted } } subject { __typename ... on Member { name } } } }`
	const q2 = `subscription { myEvents { id sequence actor { name } } }`
	done := make(chan struct{})
	for i := 0; i < 6; i++ {
		u := ann
		if i%2 == 1 {
			u = ben
		}
		go func(i int) {
			defer func() { done <- struct{}{} }()
			for r := 0; r < 6; r++ {
				c := dial(t, api, u)
				_ = c.Subscribe(context.Background(), "a", q1, map[string]any{"g": g})
				_ = c.Subscribe(context.Background(), "b", q2, nil)
				for k := 0; k < 3; k++ {
					select {
					case <-c.Messages:
					case <-time.After(2 * time.Second):
					}
				}
				_ = c.Complete(context.Background(), "a")
				_ = c.Subscribe(context.Background(), "a", q1, map[string]any{"g": g})
				if r%2 == 0 {
					_ = c.CloseNow()
				} else {
					_ = c.Close()
				}
			}
		}(i)
	}
	for i := 0; i < 6; i++ {
		<-done
	}
	close(stop)
	<-pubDone
	require.Eventually(t, func() bool { return api.Live.Count() == 0 }, 10*time.Second, 10*time.Millisecond, "subscriptions left: %d", api.Live.Count())
}
