package httpapi_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/stretchr/testify/require"
)

// rawSubscriber opens a graphql-transport-ws connection with subs
// subscriptions and then reads nothing: no goroutine of its own on the
// client side, so that the process's goroutines are the server's.
func rawSubscriber(t *testing.T, api *apitest.API, header string, subs int, g string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ops []wsclient.Subscription
	for i := range subs {
		q := `subscription { myEvents { id } }`
		if i%2 == 1 {
			q = `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type } }`
		}
		ops = append(ops, wsclient.Subscription{ID: string(rune('a' + i)), Query: q, Variables: map[string]any{"g": g}})
	}
	ws, err := wsclient.DialIdle(ctx, api.URL(), map[string]any{"Authorization": header}, ops...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.CloseNow() })
}

// An idle subscription costs no goroutine: a connection has its reader and
// its writer, whatever the number of subscriptions it carries.
func TestLiveIdleSubscriptionsCostNoGoroutine(t *testing.T) {
	const conns, perConn = 20, 5
	api := apitest.New(t, apitest.Live(), apitest.LiveLimits(httpapi.LiveLimits{ConnectionsPerUser: conns + 1}))
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	rawSubscriber(t, api, ann.Header(), 1, g) // warm up the server's pools
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	before := serverGoroutines()
	for range conns {
		rawSubscriber(t, api, ann.Header(), perConn, g)
	}
	require.Eventually(t, func() bool { return api.Live.Count() == 1+conns*perConn }, 10*time.Second, 5*time.Millisecond)
	// The goroutines that set subscriptions up end once they are open.
	var after int
	require.Eventually(t, func() bool {
		after = serverGoroutines()
		return after-before <= conns
	}, 10*time.Second, 20*time.Millisecond, "more than one goroutine per idle connection")
	t.Logf("%d server goroutines for %d connections carrying %d subscriptions", after-before, conns, conns*perConn)
}

// serverGoroutines counts the goroutines of the server side: HTTP
// connections and anything the API runs (the client's are left out).
func serverGoroutines() int {
	buf := make([]byte, 8<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "net/http.(*conn).serve") || strings.Contains(g, "fracti/api/httpapi.") ||
			strings.Contains(g, "fracti/api/live.") || strings.Contains(g, "fracti/api/graph.") {
			n++
		}
	}
	return n
}

// The older subscriptions-transport-ws subprotocol (`graphql-ws`) stays on
// gqlgen's transport: a subscription's events arrive as `data` messages.
func TestLiveLegacySubprotocol(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(api.URL(), "http", "ws", 1), &websocket.DialOptions{Subprotocols: []string{"graphql-ws"}})
	require.NoError(t, err)
	defer ws.CloseNow()
	require.Equal(t, "graphql-ws", ws.Subprotocol())
	send := func(m map[string]any) {
		b, _ := json.Marshal(m)
		require.NoError(t, ws.Write(ctx, websocket.MessageText, b))
	}
	read := func() (m struct {
		ID      string
		Type    string
		Payload json.RawMessage
	}) {
		_, b, err := ws.Read(ctx)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": ann.Header()}})
	require.Equal(t, "connection_ack", read().Type)
	send(map[string]any{"id": "1", "type": "start", "payload": map[string]any{"query": groupEvents, "variables": map[string]any{"g": g}}})
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	ann.Expense(g, "10.00", "1001")
	for {
		m := read()
		if m.Type == "ka" {
			continue
		}
		require.Equal(t, "data", m.Type, "%s", m.Payload)
		if strings.Contains(string(m.Payload), "EXPENSE_CREATED") {
			return
		}
	}
}
