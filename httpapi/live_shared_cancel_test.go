package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/wsclient"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// One event's loaders are shared by its subscribers, so a stream whose
// client goes away while the event is read must not break the event for a
// subscriber on a WebSocket.
func TestLiveStreamGoingAwayLeavesSharedReadsWhole(t *testing.T) {
	api := apitest.New(t, apitest.Live(), apitest.LoaderWait(60*time.Millisecond))
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	ann.Expense(g, "30.00", "1001", "1002")
	changes, err := api.Store.ListChanges(context.Background(), g, "", 100)
	require.NoError(t, err)
	ev := changes.Events[len(changes.Events)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wc, err := wsclient.Dial(ctx, api.URL(), map[string]any{"Authorization": ben.Header()})
	require.NoError(t, err)
	defer wc.CloseNow()
	require.NoError(t, wc.Subscribe(ctx, "s", subjectEvents, map[string]any{"g": g}))
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	poisoned := 0
	for i := 0; i < 6; i++ {
		body, _ := json.Marshal(map[string]any{"query": subjectEvents, "variables": map[string]any{"g": g}})
		rctx, rcancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(rctx, http.MethodPost, api.URL(), bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", ann.Header())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return api.Live.Count() == 2 }, 10*time.Second, 5*time.Millisecond)
		api.Live.Publish(context.Background(), []store.Event{ev})
		time.Sleep(25 * time.Millisecond)
		rcancel()
		_ = resp.Body.Close()
		for {
			m := <-wc.Messages
			if m.ID != "s" {
				continue
			}
			if strings.Contains(string(m.Payload), `"errors"`) {
				poisoned++
				t.Logf("ben got: %s", m.Payload)
			}
			break
		}
		require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	}
	require.Zero(t, poisoned, "a stream's client going away broke another subscriber's event")
}
