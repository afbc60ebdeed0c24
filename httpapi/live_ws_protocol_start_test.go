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

// graphql-transport-ws at the start of a connection
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md): a ping
// is answered before connection_init too, a subscribe before the ack is
// 4401, a subscribe without an id 4400.
func TestLiveWSProtocolAtStart(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	init := map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": ann.Header()}}
	sub := func(id any) map[string]any {
		m := map[string]any{"type": "subscribe", "payload": map[string]any{"query": `{ me { id } }`}}
		if id != nil {
			m["id"] = id
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		send  []map[string]any
		reply []string // the types of the messages before the close
		close websocket.StatusCode
	}{
		{"ping before connection_init", []map[string]any{{"type": "ping"}, {"type": "pong"}, init, {"type": "ping"}}, []string{"pong", "connection_ack", "pong"}, -1},
		{"subscribe before connection_init", []map[string]any{sub("1")}, nil, 4401},
		{"subscribe without an id", []map[string]any{init, sub(nil)}, []string{"connection_ack"}, 4400},
		{"subscribe with an empty id", []map[string]any{init, sub("")}, []string{"connection_ack"}, 4400},
		{"a duplicate id", []map[string]any{init, {"type": "subscribe", "id": "s", "payload": map[string]any{"query": `subscription { myEvents { id } }`}}, {"type": "subscribe", "id": "s", "payload": map[string]any{"query": `subscription { myEvents { id } }`}}}, []string{"connection_ack"}, 4409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ws, _, err := websocket.Dial(ctx, strings.Replace(api.URL(), "http", "ws", 1), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
			require.NoError(t, err)
			defer ws.CloseNow()
			for _, m := range tc.send {
				b, _ := json.Marshal(m)
				require.NoError(t, ws.Write(ctx, websocket.MessageText, b))
			}
			var got []string
			for len(got) < len(tc.reply) || tc.close != -1 {
				_, b, err := ws.Read(ctx)
				if err != nil {
					require.Equal(t, tc.close, websocket.CloseStatus(err), "%v after %v", err, got)
					break
				}
				var m struct{ Type string }
				require.NoError(t, json.Unmarshal(b, &m))
				got = append(got, m.Type)
			}
			require.Equal(t, tc.reply, got)
		})
	}
}
