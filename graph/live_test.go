package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const groupEventsSub = `subscription($g: ID!) { groupEvents(groupId: $g) {
	id sequence type syncToken actor { name }
	subject { __typename ... on Expense { id description amount } ... on Member { id name } }
} }`

// liveEvent is a GroupEvent as the subscriptions above select it.
type liveEvent struct {
	ID        string
	Sequence  int
	Type      string
	SyncToken string
	Actor     struct{ Name string }
	Subject   struct {
		Typename    string `json:"__typename"`
		ID          string
		Description string
		Name        string
	}
}

// dial connects u over a WebSocket.
func dial(t *testing.T, api *apitest.API, u *apitest.User) *wsclient.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wsclient.Dial(ctx, api.URL(), map[string]any{"Authorization": u.Header()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

// next waits for the next message of operation id.
func next(t *testing.T, c *wsclient.Conn, id string) wsclient.Message {
	t.Helper()
	for {
		select {
		case m, ok := <-c.Messages:
			require.True(t, ok, "connection closed while waiting for %s", id)
			if m.ID == id {
				return m
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no message for %s within 10s", id)
		}
	}
}

// nextEvent waits for the next event of subscription id, under field,
// skipping joins and the invites they used: one recorded just before the
// subscription may arrive.
func nextEvent(t *testing.T, c *wsclient.Conn, id, field string) liveEvent {
	t.Helper()
	for {
		m := next(t, c, id)
		require.Equal(t, "next", m.Type, "payload: %s", m.Payload)
		var payload struct {
			Data   map[string]liveEvent
			Errors []any
		}
		require.NoError(t, json.Unmarshal(m.Payload, &payload))
		require.Empty(t, payload.Errors)
		if ev := payload.Data[field]; ev.Type != "MEMBER_JOINED" && ev.Type != "GROUP_CREATED" && ev.Type != "INVITE_CREATED" || field == "myEvents" {
			return ev
		}
	}
}

// completed waits for subscription id to complete, past the events recorded
// before it ended.
func completed(t *testing.T, c *wsclient.Conn, id string) {
	t.Helper()
	for {
		m := next(t, c, id)
		if m.Type == "complete" {
			return
		}
		require.Equal(t, "next", m.Type, "payload: %s", m.Payload)
		require.NotContains(t, string(m.Payload), "EXPENSE_CREATED")
	}
}

func TestGroupEventsDeliversAMutationWithItsSubject(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)

	c := dial(t, api, ben)
	require.NoError(t, c.Subscribe(context.Background(), "1", groupEventsSub, map[string]any{"g": g}))
	waitSubscribed(t, api, 1)

	exp := ann.Expense(g, "30.00", "1001", "1002")
	ev := nextEvent(t, c, "1", "groupEvents")
	require.Equal(t, "EXPENSE_CREATED", ev.Type)
	require.Equal(t, "Expense", ev.Subject.Typename)
	require.Equal(t, exp, ev.Subject.ID)
	require.Equal(t, "Ann", ev.Actor.Name)

	// The event's token continues exactly after it.
	ann.Expense(g, "10.00", "1001")
	second := nextEvent(t, c, "1", "groupEvents")
	require.Equal(t, ev.Sequence+1, second.Sequence)
	var out struct {
		Group struct {
			Changes struct {
				Events  []struct{ Sequence int }
				HasMore bool
			}
		}
	}
	ben.Must(&out, `query($g: ID!, $s: String) { group(id: $g) { changes(since: $s) { events { sequence } hasMore } } }`, "g", g, "s", ev.SyncToken)
	require.Len(t, out.Group.Changes.Events, 1)
	require.Equal(t, second.Sequence, out.Group.Changes.Events[0].Sequence)
}

// waitSubscribed waits until the hub holds n subscriptions: a subscribe
// message is answered only by events, so a test must know it is registered
// before it writes.
func waitSubscribed(t *testing.T, api *apitest.API, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return api.Live.Count() == n }, 10*time.Second, 5*time.Millisecond)
}

// noMessage checks that nothing arrives for a while (an event would take
// the stream's poll, well under this).
func noMessage(t *testing.T, c *wsclient.Conn, within time.Duration) {
	t.Helper()
	select {
	case m, ok := <-c.Messages:
		if ok {
			t.Fatalf("unexpected %s message for %q: %s", m.Type, m.ID, m.Payload)
		}
	case <-time.After(within):
	}
}

func TestGroupEventsDeliversAWriteThatBypassedTheServer(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Dinner")
	c := dial(t, api, ann)
	require.NoError(t, c.Subscribe(context.Background(), "s", groupEventsSub, map[string]any{"g": g}))
	waitSubscribed(t, api, 1)

	// A script using the store package, not the server, renames the group.
	ctx := context.Background()
	groups, err := api.Store.GetGroups(ctx, []string{g})
	require.NoError(t, err)
	title := "Dinner at Ann's"
	_, err = api.Store.UpdateGroup(ctx, *groups[0], store.GroupChange{Title: &title}, "1001")
	require.NoError(t, err)

	ev := nextEvent(t, c, "s", "groupEvents")
	require.Equal(t, "GROUP_UPDATED", ev.Type)
}

func TestGroupEventsRefusesNonMembers(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, eve := api.User("1001", "Ann"), api.User("1666", "Eve")
	g := ann.CreateGroup("Dinner")
	c := dial(t, api, eve)
	ctx := context.Background()
	for id, group := range map[string]string{"a": g, "b": "not-a-group", "c": "7b0c7d54-1d0c-4c43-9a43-9b6f0e7d2a11"} {
		require.NoError(t, c.Subscribe(ctx, id, groupEventsSub, map[string]any{"g": group}))
		// Refused before it started: the protocol's error message, which
		// ends the subscription (no complete follows).
		m := next(t, c, id)
		require.Equal(t, "error", m.Type, "%s", m.Payload)
		require.Contains(t, string(m.Payload), `"code":"NOT_FOUND"`)
	}
	require.Zero(t, api.Live.Count())
	ann.Expense(g, "10.00", "1001")
	noMessage(t, c, 300*time.Millisecond)
}

func TestGroupEventsCompletesWhenTheMembershipEnds(t *testing.T) {
	for name, leave := range map[string]func(api *apitest.API, ben *apitest.User, g string){
		"leaving through the API": func(_ *apitest.API, ben *apitest.User, g string) {
			ben.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g)
		},
		"erasing their data": func(_ *apitest.API, ben *apitest.User, _ string) {
			ben.Must(nil, eraseMyData, "c", "ERASE")
		},
		"removed by the owner": func(api *apitest.API, _ *apitest.User, g string) {
			api.User("1001", "Ann").Must(nil, `mutation($g: ID!) { removeMember(groupId: $g, userId: "1002") }`, "g", g)
		},
		// Not through the API: the check per event reads the membership itself.
		"removed by another path": func(api *apitest.API, _ *apitest.User, g string) {
			_, err := api.Store.LeaveGroup(context.Background(), g, "1002", "")
			require.NoError(t, err)
		},
	} {
		t.Run(name, func(t *testing.T) {
			api := apitest.New(t, apitest.Live())
			ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
			g := ann.CreateGroup("Dinner")
			ben.Join(g)
			c := dial(t, api, ben)
			require.NoError(t, c.Subscribe(context.Background(), "g", groupEventsSub, map[string]any{"g": g}))
			waitSubscribed(t, api, 1)

			leave(api, ben, g)
			completed(t, c, "g")
			ann.Expense(g, "10.00", "1001")
			ann.Expense(g, "12.00", "1001")
			noMessage(t, c, 300*time.Millisecond)
			require.Zero(t, api.Live.Count())
		})
	}
}

func TestMyEventsFollowsTheUsersGroups(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g1, g2, g3 := ann.CreateGroup("One"), ann.CreateGroup("Two"), ann.CreateGroup("Three")
	ben.Join(g1)
	c := dial(t, api, ben)
	require.NoError(t, c.Subscribe(context.Background(), "me", `subscription { myEvents { id type sequence } }`, nil))
	waitSubscribed(t, api, 1)

	ann.Expense(g2, "5.00", "1001") // not Ben's group
	ann.Expense(g1, "6.00", "1001")
	ev := nextEvent(t, c, "me", "myEvents")
	for ev.Type == "INVITE_CREATED" || ev.Type == "MEMBER_JOINED" { // Ben's own join, recorded just before, and its invite
		ev = nextEvent(t, c, "me", "myEvents")
	}
	require.Equal(t, "EXPENSE_CREATED", ev.Type)
	require.Contains(t, ev.ID, g1)

	ben.Join(g3) // a group joined while subscribed
	ev = nextEvent(t, c, "me", "myEvents")
	if ev.Type == "INVITE_CREATED" { // the invite he joined with, when the stream hands it over with the join
		ev = nextEvent(t, c, "me", "myEvents")
	}
	require.Equal(t, "MEMBER_JOINED", ev.Type)
	require.Contains(t, ev.ID, g3)
	ann.Expense(g3, "7.00", "1001")
	require.Equal(t, "EXPENSE_CREATED", nextEvent(t, c, "me", "myEvents").Type)

	ben.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g1)
	ann.Expense(g1, "8.00", "1001")
	ann.Expense(g3, "9.00", "1001")
	ev = nextEvent(t, c, "me", "myEvents")
	require.Contains(t, ev.ID, g3, "nothing from the group left, and the subscription goes on")
	require.Equal(t, 1, api.Live.Count())
}

// TestMyEventsFollowsGroupsTheUserMakes: a group Ben creates, or imports
// from a file, while subscribed to myEvents is one of his groups from its
// first event on.
func TestMyEventsFollowsGroupsTheUserMakes(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	c := dial(t, api, ben)
	require.NoError(t, c.Subscribe(context.Background(), "me", `subscription { myEvents { id type } }`, nil))
	waitSubscribed(t, api, 1)

	made := ben.CreateGroup("Made")
	ev := nextEvent(t, c, "me", "myEvents")
	require.Equal(t, "GROUP_CREATED", ev.Type)
	require.Contains(t, ev.ID, made)
	ann.Join(made)
	for ev.Type != "MEMBER_JOINED" {
		ev = nextEvent(t, c, "me", "myEvents")
	}
	ann.Expense(made, "4.00", "1001", "1002")
	require.Equal(t, "EXPENSE_CREATED", nextEvent(t, c, "me", "myEvents").Type)

	file := apitest.File{Name: "trip.csv", Data: []byte("Date,Description,Category,Cost,Currency,Ben,Dev\n2026-03-01,Taxi,Taxi,10.00,INR,5.00,-5.00\n")}
	var imported importReport
	ben.Must(&imported, importMutation, "file", file, "dry", false)
	for _, want := range []string{"GROUP_CREATED", "GROUP_IMPORTED"} {
		ev := nextEvent(t, c, "me", "myEvents")
		require.Equal(t, want, ev.Type)
		require.Contains(t, ev.ID, imported.ImportGroup.Group.ID)
	}
	ben.Expense(imported.ImportGroup.Group.ID, "3.00", "1002")
	require.Equal(t, "EXPENSE_CREATED", nextEvent(t, c, "me", "myEvents").Type)
}

func TestChangesCatchesUpExactlyAfterADisconnect(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Trip")
	ben.Join(g)
	c := dial(t, api, ben)
	require.NoError(t, c.Subscribe(context.Background(), "g", groupEventsSub, map[string]any{"g": g}))
	waitSubscribed(t, api, 1)
	ann.Expense(g, "1.00", "1001", "1002")
	last := nextEvent(t, c, "g", "groupEvents")
	require.NoError(t, c.Close())
	require.Eventually(t, func() bool { return api.Live.Count() == 0 }, 10*time.Second, 5*time.Millisecond)

	// 20 events happen while Ben is away.
	var missed []string
	for i := range 20 {
		missed = append(missed, ann.Expense(g, fmt.Sprintf("%d.00", i+2), "1001", "1002"))
	}
	type change struct {
		Sequence  int
		Type      string
		SyncToken string
		Subject   struct{ ID string }
	}
	var got []change
	since := last.SyncToken
	for {
		var out struct {
			Group struct {
				Changes struct {
					Events  []change
					Token   string
					HasMore bool
				}
			}
		}
		ben.Must(&out, `query($g: ID!, $s: String) { group(id: $g) { changes(since: $s, first: 7) {
			events { sequence type syncToken subject { ... on Expense { id } } } token hasMore } } }`, "g", g, "s", since)
		ch := out.Group.Changes
		got = append(got, ch.Events...)
		if len(ch.Events) > 0 {
			require.Equal(t, ch.Events[len(ch.Events)-1].SyncToken != "", true)
		}
		since = ch.Token
		if !ch.HasMore {
			break
		}
	}
	require.Len(t, got, 20, "exactly the events missed")
	for i, ev := range got {
		require.Equal(t, last.Sequence+1+i, ev.Sequence)
		require.Equal(t, "EXPENSE_CREATED", ev.Type)
		require.Equal(t, missed[i], ev.Subject.ID)
	}
	// Caught up: nothing more, and the same token again.
	var out struct {
		Group struct {
			Changes struct {
				Events []change
				Token  string
			}
		}
	}
	ben.Must(&out, `query($g: ID!, $s: String) { group(id: $g) { changes(since: $s) { events { sequence } token } } }`, "g", g, "s", since)
	require.Empty(t, out.Group.Changes.Events)

	// Group.syncToken is the head: nothing after it either.
	var head struct{ Group struct{ SyncToken string } }
	ben.Must(&head, `query($g: ID!) { group(id: $g) { syncToken } }`, "g", g)
	ben.Must(&out, `query($g: ID!, $s: String) { group(id: $g) { changes(since: $s) { events { sequence } } } }`, "g", g, "s", head.Group.SyncToken)
	require.Empty(t, out.Group.Changes.Events)
}

func TestChangesRefusesTokensItCannotHonour(t *testing.T) {
	api := apitest.New(t)
	ann := api.User("1001", "Ann")
	g, other := ann.CreateGroup("Trip"), ann.CreateGroup("Other")
	var head struct{ Group struct{ SyncToken string } }
	ann.Must(&head, `query($g: ID!) { group(id: $g) { syncToken } }`, "g", other)

	const q = `query($g: ID!, $s: String) { group(id: $g) { changes(since: $s) { token } } }`
	for name, token := range map[string]string{"another group's": head.Group.SyncToken, "made up": "abc.def", "empty": ""} {
		t.Run(name, func(t *testing.T) {
			if token == "" {
				ann.Must(nil, q, "g", g, "s", token) // "" is the start of the log
				return
			}
			res := ann.Fails("BAD_USER_INPUT", q, "g", g, "s", token)
			require.Equal(t, "since", res.Field())
		})
	}
	// (A token past the retention: store/list_changes_test.go.)
	ann.Fails("BAD_USER_INPUT", `query($g: ID!) { group(id: $g) { changes(first: 0) { token } } }`, "g", g)
}
