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

const subjectSub = `subscription($g: ID!) { groupEvents(groupId: $g) {
	id sequence type subject { __typename ... on Expense { id description amount payers { member { name } } } } } }`

// subscribeAll subscribes each connection to query and waits until the hub
// holds want subscriptions.
func subscribeAll(t *testing.T, api *apitest.API, conns []*wsclient.Conn, query string, vars map[string]any, want int) {
	t.Helper()
	for _, c := range conns {
		require.NoError(t, c.Subscribe(context.Background(), "s", query, vars))
	}
	require.Eventually(t, func() bool { return api.Live.Count() == want }, 10e9, 5e6)
}

// republish publishes the group's event seq again, as the stream would,
// and waits until every connection has it; it returns the DynamoDB calls
// it cost by operation.
func republish(t *testing.T, api *apitest.API, g string, seq int, conns []*wsclient.Conn) map[string]int {
	t.Helper()
	changes, err := api.Store.ListChanges(context.Background(), g, "", 100)
	require.NoError(t, err)
	var ev store.Event
	for _, e := range changes.Events {
		if int(e.Seq) == seq {
			ev = e
		}
	}
	require.NotZero(t, ev.Seq)
	api.Calls.Reset()
	api.Live.Publish(context.Background(), []store.Event{ev})
	for _, c := range conns {
		for {
			if got := nextEvent(t, c, "s", "groupEvents"); got.Sequence == seq {
				require.Equal(t, "Expense", got.Subject.Typename)
				break
			}
		}
	}
	return api.Calls.ByOperation()
}

// One event's data is read once on the instance, whatever the number of
// its subscribers and whatever they select.
func TestAnEventIsReadOnceForAllItsSubscribers(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	first := dial(t, api, ann)
	subscribeAll(t, api, []*wsclient.Conn{first}, subjectSub, map[string]any{"g": g}, 1)
	ann.Expense(g, "30.00", "1001", "1002")
	ev := nextEvent(t, first, "s", "groupEvents")
	require.Equal(t, "EXPENSE_CREATED", ev.Type)

	one := republish(t, api, g, ev.Sequence, []*wsclient.Conn{first})
	t.Logf("one subscriber: %v", one)
	require.Positive(t, one["BatchGetItem"]+one["Query"]+one["GetItem"], "the subject is read")

	// Eleven more subscribers, two users, three different selections.
	var more []*wsclient.Conn
	for i := range 11 {
		u := ann
		if i%2 == 1 {
			u = ben
		}
		more = append(more, dial(t, api, u))
	}
	subscribeAll(t, api, more[:5], subjectSub, map[string]any{"g": g}, 6)
	subscribeAll(t, api, more[5:8], `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type subject { __typename ... on Expense { id amount } } } }`, map[string]any{"g": g}, 9)
	subscribeAll(t, api, more[8:], `subscription($g: ID!) { groupEvents(groupId: $g) { sequence id type subject { __typename ... on Expense { description } } } }`, map[string]any{"g": g}, 12)
	twelve := republish(t, api, g, ev.Sequence, append([]*wsclient.Conn{first}, more...))
	t.Logf("twelve subscribers: %v", twelve)
	// Token lookups (the credential check before each delivery) are per
	// connection; the event's reads are not.
	for _, op := range []string{"BatchGetItem", "Query"} {
		require.Equal(t, one[op], twelve[op], "%s calls for one subscriber and for twelve", op)
	}
}

// Subscribers whose selection reaches a field that depends on the viewer
// get their own payloads; the others share one.
func TestViewerDependentFieldsAreRenderedPerViewer(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	const q = `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type actor { name notificationSettings { muted } } } }`
	annC, benC := dial(t, api, ann), dial(t, api, ben)
	subscribeAll(t, api, []*wsclient.Conn{annC, benC}, q, map[string]any{"g": g}, 2)
	ann.Expense(g, "30.00", "1001", "1002")
	type actorEvent struct {
		Type  string
		Actor struct {
			Name                 string
			NotificationSettings *struct{ Muted bool }
		}
	}
	read := func(c *wsclient.Conn) actorEvent {
		for {
			m := next(t, c, "s")
			require.Equal(t, "next", m.Type, "%s", m.Payload)
			var p struct {
				Data struct{ GroupEvents actorEvent }
			}
			require.NoError(t, json.Unmarshal(m.Payload, &p), "%s", m.Payload)
			if p.Data.GroupEvents.Type == "EXPENSE_CREATED" {
				return p.Data.GroupEvents
			}
		}
	}
	annSees, benSees := read(annC), read(benC)
	require.Equal(t, "Ann", annSees.Actor.Name)
	require.Equal(t, "Ann", benSees.Actor.Name)
	require.NotNil(t, annSees.Actor.NotificationSettings, "Ann sees her own settings")
	require.Nil(t, benSees.Actor.NotificationSettings, "Ben does not see Ann's")
}
