package graph_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A payload rendered once for every subscriber with the same key must not
// carry the first subscriber's request id: its errors have none at all.
func TestLiveSharedPayloadErrorsCarryNoRequestID(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	// changes(first: 0) is a BAD_USER_INPUT error in every payload.
	const q = `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type subject { __typename ... on Group { changes(first: 0) { token } } } } }`
	annC, benC := dial(t, api, ann), dial(t, api, ben)
	subscribeAll(t, api, []*wsclient.Conn{annC, benC}, q, map[string]any{"g": g}, 2)
	changes, err := api.Store.ListChanges(context.Background(), g, "", 100)
	require.NoError(t, err)
	var ev store.Event
	for _, e := range changes.Events {
		if e.Seq == 1 {
			ev = e
		}
	}
	api.Live.Publish(context.Background(), []store.Event{ev})
	for name, c := range map[string]*wsclient.Conn{"ann": annC, "ben": benC} {
		// The join's own events are handed to subscribers after their
		// commit, so on a slow machine one may still arrive after the
		// subscription started: skip to the event published here.
		var p struct {
			Data struct {
				GroupEvents struct{ Sequence int }
			}
			Errors []struct {
				Extensions map[string]any
			}
		}
		var m wsclient.Message
		for p.Data.GroupEvents.Sequence != 1 {
			m = next(t, c, "s")
			p.Errors = nil
			require.NoError(t, json.Unmarshal(m.Payload, &p))
		}
		require.NotEmpty(t, p.Errors, "%s: %s", name, m.Payload)
		for _, e := range p.Errors {
			require.NotContains(t, e.Extensions, "requestId", "%s's shared payload carries a request id: %s", name, m.Payload)
		}
	}
}
