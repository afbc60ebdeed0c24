package httpapi_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// An idle WebSocket keeps no HTTP handler: once connection_init is
// accepted the request's goroutine returns (and net/http's buffers go with
// it); the connection still ends as before, and its user's slot with it.
func TestLiveIdleConnectionKeepsNoHandler(t *testing.T) {
	const conns = 10
	api := apitest.New(t, apitest.Live(), apitest.LiveLimits(httpapi.LiveLimits{ConnectionsPerUser: conns}))
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	for range conns {
		rawSubscriber(t, api, ann.Header(), 1, g)
	}
	require.Eventually(t, func() bool { return api.Live.Count() == conns }, 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return handlerGoroutines() == 0 }, 10*time.Second, 20*time.Millisecond,
		"a request's goroutine still serves an idle WebSocket")
	// Its slots are held: one more connection of Ann's is refused.
	_, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.Error(t, err)
}

// handlerGoroutines counts the goroutines inside a WebSocket's HTTP handler.
func handlerGoroutines() int {
	buf := make([]byte, 8<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "net/http.(*conn).serve") && strings.Contains(g, "httpapi.wsTransport.Do") {
			n++
		}
	}
	return n
}

// A client may send connection_init in the same packet as its handshake:
// what the server read past the handshake is not lost with net/http's
// buffer.
func TestLiveConnectionInitSentWithTheHandshake(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	u, err := url.Parse(api.URL())
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	init, _ := json.Marshal(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": ann.Header()}})
	handshake := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n",
		u.Path, u.Host, base64.StdEncoding.EncodeToString([]byte("0123456789abcdef")))
	_, err = conn.Write(append([]byte(handshake), maskedTextFrame(init)...)) // one write
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	head := make([]byte, 2)
	_, err = io.ReadFull(br, head)
	require.NoError(t, err)
	msg := make([]byte, head[1]&0x7f)
	_, err = io.ReadFull(br, msg)
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"connection_ack"}`, string(msg))
}

// maskedTextFrame is a client's text frame carrying p (shorter than 64 KiB).
func maskedTextFrame(p []byte) []byte {
	key := [4]byte{1, 2, 3, 4}
	f := []byte{0x81}
	if len(p) < 126 {
		f = append(f, 0x80|byte(len(p)))
	} else {
		f = append(f, 0x80|126, byte(len(p)>>8), byte(len(p)))
	}
	f = append(f, key[:]...)
	for i, b := range p {
		f = append(f, b^key[i%4])
	}
	return f
}
