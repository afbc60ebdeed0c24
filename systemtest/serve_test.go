package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/commands"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/stretchr/testify/require"
)

// serve runs the serve command in this process, as the binary would, with
// the environment the test set (servertest.Serve).
func serve(t *testing.T) (base string, stop func() error) {
	return servertest.Serve(t, func(ctx context.Context) error {
		return commands.Run(ctx, []string{"serve"}, io.Discard, os.Stderr)
	})
}

// TestServeShutsDownGracefully: serve stops when its context ends, as on
// SIGTERM, without an error.
func TestServeShutsDownGracefully(t *testing.T) {
	servertest.LocalTable(t)
	_, stop := serve(t)
	require.NoError(t, stop())
}

// TestServeWithoutTheBotToken: serve starts with TELEGRAM_BOT_ID and no
// TELEGRAM_BOT_TOKEN (NOTIFY asked for, which needs the token, only warns),
// and signs in the user of init data Telegram signed for that bot; the
// Bot API's features say that they need the token.
func TestServeWithoutTheBotToken(t *testing.T) {
	servertest.LocalTable(t)
	t.Setenv("TELEGRAM_BOT_TOKEN", "")
	t.Setenv("TELEGRAM_BOT_ID", strconv.Itoa(apitest.TelegramSignedBotID))
	t.Setenv("NOTIFY", "true")
	// The sample is old: its age, and a day, is allowed.
	t.Setenv("AUTH_MAX_AGE", fmt.Sprintf("%dh", int(time.Since(apitest.TelegramSignedAt).Hours())+24))
	api, stop := serve(t)
	tma := "tma " + apitest.TelegramSignedInitData

	var me struct{ Me struct{ ID string } }
	servertest.GQLAs(t, api+"/graphql", tma, &me, `{ me { id } }`, nil)
	require.Equal(t, apitest.TelegramSignedUserID, me.Me.ID)
	var created struct{ CreateGroup struct{ ID string } }
	servertest.GQLAs(t, api+"/graphql", tma, &created, `mutation { createGroup(input: {title: "T", currency: "USD"}) { id } }`, nil)

	body, _ := json.Marshal(map[string]any{"query": `mutation($g: ID!) { remindDebtors(groupId: $g) { directMessages } }`,
		"variables": map[string]any{"g": created.CreateGroup.ID}})
	req, _ := http.NewRequest(http.MethodPost, api+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", tma)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(answer), `"code":"UNAVAILABLE"`)
	require.Contains(t, string(answer), "no Telegram bot configured")
	require.NoError(t, stop())
}

// With METRICS_ADDR the server serves its metrics there, and not on the
// API's port; they count its DynamoDB and DynamoDB Streams calls and its
// requests.
func TestServeMetricsOnTheirOwnListener(t *testing.T) {
	servertest.LocalTable(t)
	metricsPort := servertest.FreePort(t)
	t.Setenv("METRICS_ADDR", "127.0.0.1:"+metricsPort)
	t.Setenv("STREAM_POLL_INTERVAL", "50ms")
	api, _ := serve(t)
	metrics := "http://127.0.0.1:" + metricsPort + "/metrics"

	resp, err := http.Post(api+"/graphql", "application/json", strings.NewReader(`{"query":"query Ping { __typename }"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Get(api + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "not on the API's port")

	var m scrape.Metrics
	require.Eventually(t, func() bool {
		m = scrape.Get(t, metrics)
		return m.Sum("fracti_dynamodb_calls_total", scrape.Labels{"operation": "GetRecords"}) > 0
	}, 30*time.Second, 50*time.Millisecond, "the stream's reads are counted")
	require.Positive(t, m.Sum("fracti_dynamodb_calls_total", scrape.Labels{"operation": "DescribeTable"}), "the readiness checks")
	require.Equal(t, 1.0, m.Sum("fracti_graphql_requests_total", scrape.Labels{"operation": "Ping", "type": "query", "status": "200", "outcome": "ok"}))
}
