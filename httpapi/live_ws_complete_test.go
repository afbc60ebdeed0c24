package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// Once the client completes a query still running, nothing more is sent
// for it: the ping sent after the complete is answered before anything
// for the operation would be, 20 rounds over.
func TestLiveWSNothingAfterTheClientsComplete(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(api.URL(), "http", "ws", 1), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	require.NoError(t, err)
	defer ws.CloseNow()
	send := func(m map[string]any) {
		b, _ := json.Marshal(m)
		require.NoError(t, ws.Write(ctx, websocket.MessageText, b))
	}
	type msg struct {
		ID      string
		Type    string
		Payload json.RawMessage
	}
	read := func() (m msg) {
		_, b, err := ws.Read(ctx)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": ann.Header()}})
	require.Equal(t, "connection_ack", read().Type)
	var after []msg
	for i := 0; i < 20; i++ {
		send(map[string]any{"id": "q", "type": "subscribe", "payload": map[string]any{"query": `query($g: ID!) { node(id: $g) { id ... on Group { title members { edges { node { name } } } } } }`, "variables": map[string]any{"g": g}}})
		send(map[string]any{"id": "q", "type": "complete"})
		send(map[string]any{"type": "ping"})
		for {
			m := read()
			if m.Type == "pong" {
				break
			}
			if m.Type != "ping" {
				after = append(after, m)
			}
		}
	}
	// Anything still on its way comes before the answer to one more ping.
	send(map[string]any{"type": "ping"})
	for m := read(); m.Type != "pong"; m = read() {
		if m.Type != "ping" {
			after = append(after, m)
		}
	}
	require.Empty(t, after, "messages for an operation the client completed")
}
