package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const groupEvents = `subscription($g: ID!) { groupEvents(groupId: $g) { id type sequence syncToken } }`

func dialWS(t *testing.T, api *apitest.API, payload map[string]any) (*wsclient.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wsclient.Dial(ctx, api.URL(), payload)
	if err == nil {
		t.Cleanup(func() { _ = c.CloseNow() })
	}
	return c, err
}

// closedWith waits for the server to close c and returns how.
func closedWith(t *testing.T, c *wsclient.Conn) wsclient.CloseError {
	t.Helper()
	for {
		select {
		case _, ok := <-c.Messages:
			if !ok {
				return <-c.Closed
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not close the connection")
		}
	}
}

func TestLiveConnectionRefusesBadCredentials(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	for name, tc := range map[string]struct {
		payload map[string]any
		code    int
		reason  string
	}{
		"no credentials": {map[string]any{}, 4401, "Unauthorized"},
		"forged token":   {map[string]any{"Authorization": "Bearer fracti_" + strings.Repeat("x", 43)}, 4403, "Forbidden"},
		"forged init data": {map[string]any{"Authorization": "tma " + strings.Replace(
			apitest.InitData(7, "Eve", "", "eve", now()), "Eve", "Ann", 1)}, 4403, "Forbidden"},
		"expired init data": {map[string]any{"Authorization": "tma " + apitest.InitData(7, "Eve", "", "eve", now().Add(-48*time.Hour))}, 4403, "Forbidden"},
		"not a scheme":      {map[string]any{"Authorization": "Basic abc"}, 4403, "Forbidden"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := dialWS(t, api, tc.payload)
			ce, ok := wsclient.DialError(err)
			require.True(t, ok, "refused with a close, got %v", err)
			require.Equal(t, tc.code, ce.Code, "reason %q", ce.Reason)
			require.Contains(t, ce.Reason, tc.reason)
		})
	}
	// Telegram users sign in over the socket as over HTTP.
	ann := api.TelegramUser(7, "Ann", "Lee", "ann")
	_, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.NoError(t, err)
}

func TestLiveConnectionEndsWhenItsTokenIsRevoked(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Trip")
	ben.Join(g)
	var made struct {
		CreateAccessToken struct {
			Token       string
			AccessToken struct{ ID string }
		}
	}
	ann.Must(&made, `mutation { createAccessToken(input: {name: "phone", scopes: [READ]}) { token accessToken { id } } }`)
	c, err := dialWS(t, api, map[string]any{"Authorization": "Bearer " + made.CreateAccessToken.Token})
	require.NoError(t, err)
	require.NoError(t, c.Subscribe(context.Background(), "1", groupEvents, map[string]any{"g": g}))
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)

	ann.Must(nil, `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", made.CreateAccessToken.AccessToken.ID)
	ben.Expense(g, "10.00", "1001", "1002")
	ce := closedWith(t, c)
	require.Equal(t, 4403, ce.Code)
	require.Contains(t, ce.Reason, "unknown access token", "a revoked token is gone")
}

func TestLiveConnectionLimits(t *testing.T) {
	api := apitest.New(t, apitest.Live(), apitest.LiveLimits(httpapi.LiveLimits{ConnectionsPerUser: 2, SubscriptionsPerConnection: 2}))
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	auth := map[string]any{"Authorization": ann.Header()}
	c1, err := dialWS(t, api, auth)
	require.NoError(t, err)
	_, err = dialWS(t, api, auth)
	require.NoError(t, err)
	_, err = dialWS(t, api, auth)
	ce, ok := wsclient.DialError(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, 4429, ce.Code)

	// A third subscription on one connection is refused; the others go on.
	ctx := context.Background()
	require.NoError(t, c1.Subscribe(ctx, "a", groupEvents, map[string]any{"g": g}))
	require.NoError(t, c1.Subscribe(ctx, "b", `subscription { myEvents { id } }`, nil))
	require.Eventually(t, func() bool { return api.Live.Count() == 2 }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, c1.Subscribe(ctx, "c", groupEvents, map[string]any{"g": g}))
	m := waitFor(t, c1, "c")
	require.Equal(t, "error", m.Type, "refused as it starts: %s", m.Payload)
	require.Contains(t, string(m.Payload), `"code":"RATE_LIMITED"`)

	// Closing a connection frees its slot.
	require.NoError(t, c1.Close())
	require.Eventually(t, func() bool {
		c, err := dialWS(t, api, auth)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
}

func TestLiveConnectionRefusesOversizedMessages(t *testing.T) {
	api := apitest.New(t, apitest.Live(), apitest.LiveLimits(httpapi.LiveLimits{MaxMessageBytes: 1024}))
	ann := api.User("1001", "Ann")
	c, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.NoError(t, err)
	require.NoError(t, c.Subscribe(context.Background(), "big", `subscription { myEvents { id } }`+strings.Repeat(" ", 2000), nil))
	ce := closedWith(t, c)
	require.Equal(t, 1009, ce.Code, "message too big: %q", ce.Reason)
}

func TestLiveDropsASlowConsumer(t *testing.T) {
	api := apitest.New(t, apitest.LiveBuffer(4))
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	c, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.NoError(t, err)
	require.NoError(t, c.Subscribe(context.Background(), "1", groupEvents, map[string]any{"g": g}))
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)

	// A burst faster than any client: the group's first event, 50 times in
	// one batch, overflows the buffer of 4 before the connection can write.
	changes, err := api.Store.ListChanges(context.Background(), g, "", 1)
	require.NoError(t, err)
	burst := make([]store.Event, 50)
	for i := range burst {
		burst[i] = changes.Events[0]
	}
	api.Live.Publish(context.Background(), burst)
	ce := closedWith(t, c)
	require.Equal(t, 1008, ce.Code)
	require.Contains(t, ce.Reason, "slow consumer")
	require.Zero(t, api.Live.Count())
}

func TestLiveOverServerSentEvents(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	body, _ := json.Marshal(map[string]any{"query": groupEvents, "variables": map[string]any{"g": g}})
	req, err := http.NewRequest(http.MethodPost, api.URL(), strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", ann.Header())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)

	ann.Expense(g, "10.00", "1001")
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		line := lines.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var ev struct {
			Data struct {
				GroupEvents struct{ Type, SyncToken string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev))
		if ev.Data.GroupEvents.Type == "EXPENSE_CREATED" {
			require.NotEmpty(t, ev.Data.GroupEvents.SyncToken)
			return
		}
	}
	t.Fatalf("the stream ended without the event: %v", lines.Err())
}

func TestLiveSubscriptionsNeedTheStream(t *testing.T) {
	api := apitest.New(t) // no live updates
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	c, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.NoError(t, err)
	require.NoError(t, c.Subscribe(context.Background(), "1", groupEvents, map[string]any{"g": g}))
	require.Contains(t, string(waitFor(t, c, "1").Payload), `"code":"UNAVAILABLE"`)
	// Queries work over the socket too, with the loaders they need.
	require.NoError(t, c.Subscribe(context.Background(), "q", `query($g: ID!) { group(id: $g) { title members { nodes { name } } } }`, map[string]any{"g": g}))
	require.Contains(t, string(waitFor(t, c, "q").Payload), `"title":"Trip"`)
}

// A subscription refused before it starts is an `error` message with the
// errors, and nothing after it (no `complete`), as graphql-transport-ws
// says; the connection and its other operations go on.
func TestLiveRefusalsAreErrorMessages(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Trip")
	c, err := dialWS(t, api, map[string]any{"Authorization": ben.Header()})
	require.NoError(t, err)
	ctx := context.Background()
	for id, tc := range map[string]struct {
		query string
		code  string
	}{
		"not a member": {groupEvents, "NOT_FOUND"},
		"invalid":      {`subscription { nope }`, "GRAPHQL_VALIDATION_FAILED"},
		"a limit":      {`subscription { myEvents { id } }` + strings.Repeat(" ", 20000), "DOCUMENT_TOO_LARGE"},
	} {
		require.NoError(t, c.Subscribe(ctx, id, tc.query, map[string]any{"g": g}))
		m := nextMessage(t, c)
		require.Equal(t, id+" error", m.ID+" "+m.Type, "%s", m.Payload)
		var errs []struct {
			Message    string
			Extensions struct{ Code string }
		}
		require.NoError(t, json.Unmarshal(m.Payload, &errs), "%s: the payload is the list of errors", id)
		require.Equal(t, tc.code, errs[0].Extensions.Code, id)
	}
	// A query answered with data is `next` then `complete`, and nothing
	// came for the refused operations before it.
	require.NoError(t, c.Subscribe(ctx, "q", `{ me { id } }`, nil))
	for _, want := range []string{"q next", "q complete"} {
		m := nextMessage(t, c)
		require.Equal(t, want, m.ID+" "+m.Type, "%s", m.Payload)
	}

	// Ben joins: the same subscription now starts, and its events are `next`.
	ben.Join(g)
	require.NoError(t, c.Subscribe(ctx, "events", groupEvents, map[string]any{"g": g}))
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	ann.Expense(g, "10.00", "1001", "1002")
	for {
		m := waitFor(t, c, "events")
		require.Equal(t, "next", m.Type, "%s", m.Payload)
		if strings.Contains(string(m.Payload), "EXPENSE_CREATED") {
			break
		}
	}
}

// nextMessage is the next message c receives, whatever its operation.
func nextMessage(t *testing.T, c *wsclient.Conn) wsclient.Message {
	t.Helper()
	select {
	case m, ok := <-c.Messages:
		require.True(t, ok, "connection closed")
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message came")
	}
	return wsclient.Message{}
}

// waitFor returns the next message of operation id.
func waitFor(t *testing.T, c *wsclient.Conn, id string) wsclient.Message {
	t.Helper()
	for {
		select {
		case m, ok := <-c.Messages:
			require.True(t, ok, "connection closed")
			if m.ID == id {
				return m
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("nothing for %s", id)
		}
	}
}

// A subscription from a client that accepts no stream is refused, and
// told which live connections there are.
func TestSubscriptionOverPlainHTTPIsRefused(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	for _, accept := range []string{"", "application/json", "multipart/mixed;subscriptionSpec=2.0", "*/*"} {
		resp := open(t, api.URL(), ann.Header(), accept, `subscription { myEvents { id } }`, nil)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, accept)
		var out struct {
			Errors []struct {
				Message    string
				Extensions struct{ Code string }
			}
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Equal(t, "BAD_REQUEST", out.Errors[0].Extensions.Code)
		for _, named := range []string{"WebSocket", "text/event-stream", "multipart/mixed;subscriptionSpec=1.0"} {
			require.Contains(t, out.Errors[0].Message, named)
		}
	}
	require.Zero(t, api.Live.Count())
}

func TestLiveClosesADeadConnection(t *testing.T) {
	api := apitest.New(t, apitest.Live(), apitest.LiveLimits(httpapi.LiveLimits{ConnectionsPerUser: 1, PingInterval: 100 * time.Millisecond}))
	ann := api.User("1001", "Ann")
	// A client that acknowledges and then goes silent: it never answers a ping.
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, strings.Replace(api.URL(), "http", "ws", 1), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	require.NoError(t, err)
	defer ws.CloseNow()
	init, _ := json.Marshal(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": ann.Header()}})
	require.NoError(t, ws.Write(ctx, websocket.MessageText, init))
	_, ack, err := ws.Read(ctx)
	require.NoError(t, err)
	require.Contains(t, string(ack), "connection_ack")

	// Its slot is taken until the server gives up on it (two ping intervals).
	_, err = dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	ce, ok := wsclient.DialError(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, 4429, ce.Code)
	require.Eventually(t, func() bool {
		c, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 10*time.Second, 50*time.Millisecond, "the dead connection was never cleaned up")
}

func TestLiveWebSocketOrigins(t *testing.T) {
	api := apitest.New(t, apitest.Live()) // CORS allows https://app.example
	for origin, ok := range map[string]bool{"https://app.example": true, "https://evil.example": false, "": true} {
		t.Run(origin, func(t *testing.T) {
			h := http.Header{}
			if origin != "" {
				h.Set("Origin", origin)
			}
			ws, resp, err := websocket.Dial(context.Background(), strings.Replace(api.URL(), "http", "ws", 1),
				&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: h})
			if ok {
				require.NoError(t, err)
				_ = ws.CloseNow()
				return
			}
			require.Error(t, err)
			require.Equal(t, http.StatusForbidden, resp.StatusCode)
		})
	}
}
