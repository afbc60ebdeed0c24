package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const subjectEvents = `subscription($g: ID!) { groupEvents(groupId: $g) {
	id sequence type subject { __typename ... on Expense { id description payers { member { name } } } } } }`

// httpStream opens a subscription over server-sent events or multipart
// and passes on every line that carries an event.
func httpStream(t *testing.T, api *apitest.API, u *apitest.User, accept, g string, lines chan<- string) {
	t.Helper()
	resp := open(t, api.URL(), u.Header(), accept, subjectEvents, map[string]any{"g": g})
	require.Equal(t, 200, resp.StatusCode)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"sequence":`) {
				lines <- sc.Text()
			}
		}
	}()
}

// Subscriptions over HTTP (gqlgen's stream per subscriber) read an event's
// data once too: the loaders of an event are shared by its subscribers.
func TestLiveStreamsOverHTTPShareAnEventsReads(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	lines := make(chan string, 100)
	httpStream(t, api, ann, "text/event-stream", g, lines)
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	ann.Expense(g, "30.00", "1001", "1002")
	changes, err := api.Store.ListChanges(context.Background(), g, "", 100)
	require.NoError(t, err)
	ev := changes.Events[len(changes.Events)-1]
	require.Equal(t, store.EventExpenseCreated, ev.Type)
	await := func(n int) {
		want := fmt.Sprintf(`"sequence":%d`, ev.Seq)
		for got := 0; got < n; {
			select {
			case l := <-lines:
				if strings.Contains(l, want) {
					require.Contains(t, l, `"__typename":"Expense"`)
					got++
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%d of %d streams had the event", got, n)
			}
		}
	}
	await(1) // from the stream
	republish := func(n int) map[string]int {
		api.Calls.Reset()
		api.Live.Publish(context.Background(), []store.Event{ev})
		await(n)
		return api.Calls.ByOperation()
	}
	one := republish(1)
	for i := range 7 {
		u, accept := ann, "text/event-stream"
		if i%2 == 1 {
			u, accept = ben, "multipart/mixed;subscriptionSpec=1.0"
		}
		httpStream(t, api, u, accept, g, lines)
	}
	require.Eventually(t, func() bool { return api.Live.Count() == 8 }, 10*time.Second, 5*time.Millisecond)
	eight := republish(8)
	t.Logf("one stream: %v; eight: %v", one, eight)
	require.Equal(t, one["BatchGetItem"], eight["BatchGetItem"], "the event's reads, for one stream and for eight")
	require.Equal(t, one["Query"], eight["Query"])
}
