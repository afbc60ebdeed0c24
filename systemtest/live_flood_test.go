package systemtest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestServeHoldsUpUnderAConnectionFlood runs the server binary with 256 file
// descriptors, so that LIVE_MAX_CONNECTIONS takes its default from them
// (128), and floods it with live connections, more than it has descriptors:
// it holds 128, refuses every other with 503 and Retry-After, and answers
// /healthz, /readyz, /metrics and queries all along. Without the cap, the
// process would run out of descriptors and stop accepting anything.
func TestServeHoldsUpUnderAConnectionFlood(t *testing.T) {
	table := servertest.LocalTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{})
	token := servertest.UserToken(t, s, "6001", "Flood")
	bin := servertest.BuildServer(t)
	limited := filepath.Join(t.TempDir(), "fracti-api-256")
	require.NoError(t, os.WriteFile(limited, []byte("#!/bin/sh\nulimit -n 256 || exit 1\nexec "+bin+` "$@"`+"\n"), 0o755))
	inst := servertest.StartInstance(t, limited, table, "LIVE_CONNECTIONS_PER_USER=100000")
	base := strings.TrimSuffix(inst.URL, "/graphql")
	ctx := context.Background()

	// answers checks that the instance still serves everything else.
	answers := func() {
		t.Helper()
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			resp, err := http.Get(base + path)
			require.NoError(t, err, path)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, path)
		}
		var me struct{ Me struct{ ID string } }
		servertest.GQL(t, inst.URL, token, &me, `{ me { id } }`, nil)
		require.Equal(t, "6001", me.Me.ID)
	}

	held := 0
	for ; held < 256; held++ {
		dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, err := wsclient.Dial(dialCtx, inst.URL, map[string]any{"Authorization": "Bearer " + token})
		cancel()
		if err != nil {
			break
		}
		t.Cleanup(func() { _ = c.CloseNow() })
	}
	require.Equal(t, 128, held, "the default cap for 256 descriptors")
	answers()

	// Twice the descriptors the process has, WebSockets and event streams.
	const flood = 512
	for i := range flood {
		var resp *http.Response
		if i%2 == 0 {
			var err error
			_, resp, err = websocket.Dial(ctx, strings.Replace(inst.URL, "http", "ws", 1),
				&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
			require.Error(t, err)
		} else {
			req, _ := http.NewRequest(http.MethodPost, inst.URL, strings.NewReader(`{"query":"subscription { myEvents { id } }"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", "Bearer "+token)
			var err error
			resp, err = http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
		}
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "connection %d", i)
		require.NotEmpty(t, resp.Header.Get("Retry-After"))
	}
	answers()
	m := scrape.Get(t, base+"/metrics")
	require.Equal(t, float64(flood+1), m.Sum("fracti_live_connections_refused_total", nil), "the flood and the one that found the cap")
	require.Equal(t, float64(held), m.Sum("fracti_live_connections", nil))
}
