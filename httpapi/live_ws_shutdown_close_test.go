package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// The server shutting down closes every graphql-transport-ws connection
// with 1000, the close handshake, not a dropped TCP connection.
func TestLiveWSShutdownClosesEveryConnectionWith1000(t *testing.T) {
	done, end := context.WithCancel(context.Background())
	api := apitest.New(t, apitest.Live(), func(c *httpapi.Config) { c.LiveDone = done })
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var conns []*websocket.Conn
	for i := 0; i < 3; i++ {
		ws, _, err := websocket.Dial(ctx, strings.Replace(api.URL(), "http", "ws", 1), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
		require.NoError(t, err)
		defer ws.CloseNow()
		b, _ := json.Marshal(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": ann.Header()}})
		require.NoError(t, ws.Write(ctx, websocket.MessageText, b))
		_, _, err = ws.Read(ctx)
		require.NoError(t, err)
		b, _ = json.Marshal(map[string]any{"id": "s", "type": "subscribe", "payload": map[string]any{"query": `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, "variables": map[string]any{"g": g}}})
		require.NoError(t, ws.Write(ctx, websocket.MessageText, b))
		conns = append(conns, ws)
	}
	require.Eventually(t, func() bool { return api.Live.Count() == 3 }, 10*time.Second, 5*time.Millisecond)
	// And one still to send its connection_init.
	ws, _, err := websocket.Dial(ctx, strings.Replace(api.URL(), "http", "ws", 1), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	require.NoError(t, err)
	defer ws.CloseNow()
	conns = append(conns, ws)
	time.Sleep(50 * time.Millisecond) // not a timing assertion: lets the server reach its read of connection_init
	end()
	codes := map[websocket.StatusCode]int{}
	for _, ws := range conns {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				codes[websocket.CloseStatus(err)]++
				t.Logf("close: %v", err)
				break
			}
			t.Logf("message before the close: %s", b)
		}
	}
	require.Equal(t, map[websocket.StatusCode]int{websocket.StatusNormalClosure: 4}, codes)
}
