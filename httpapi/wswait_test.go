//go:build unix

package httpapi_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/stretchr/testify/require"
)

// An idle connection's reader waits for the client on the shallow wait
// (readWaiter), not inside coder/websocket's Read, and reads on when the
// client sends something: a ping is answered.
func TestIdleReaderWaitsShallow(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, err := wsclient.DialIdle(ctx, api.URL(), map[string]any{"Authorization": ann.Header()},
		wsclient.Subscription{ID: "1", Query: `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, Variables: map[string]any{"g": g}})
	require.NoError(t, err)
	defer ws.CloseNow()
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)

	readers := func() (shallow, deep int) {
		buf := make([]byte, 8<<20)
		for _, gr := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if !strings.Contains(gr, "httpapi.(*wsConn).readLoop") {
				continue
			}
			if strings.Contains(gr, "httpapi.(*readWaiter).wait") {
				shallow++
			}
			if strings.Contains(gr, "websocket.(*Conn).Read") {
				deep++
			}
		}
		return shallow, deep
	}
	require.Eventually(t, func() bool { s, d := readers(); return s == 1 && d == 0 }, 10*time.Second, 10*time.Millisecond,
		"the idle reader is not on the shallow wait")

	require.NoError(t, ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`)))
	for {
		_, msg, err := ws.Read(ctx)
		require.NoError(t, err)
		if strings.Contains(string(msg), `"pong"`) {
			break
		}
	}
}
