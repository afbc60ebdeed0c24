package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/stretchr/testify/require"
)

func TestConfigMetrics(t *testing.T) {
	t.Setenv("METRICS", "")
	t.Setenv("METRICS_ADDR", "")
	c, err := loadConfig()
	require.NoError(t, err)
	require.True(t, c.Metrics, "on by default")
	require.Empty(t, c.MetricsAddr, "on the API's port by default")

	t.Setenv("METRICS", "false")
	c, err = loadConfig()
	require.NoError(t, err)
	require.False(t, c.Metrics)

	for name, env := range map[string][2]string{
		"not a boolean":              {"maybe", ""},
		"not an address":             {"true", "9090"},
		"an address with no metrics": {"false", ":9090"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("METRICS", env[0])
			t.Setenv("METRICS_ADDR", env[1])
			_, err := loadConfig()
			require.ErrorContains(t, err, "METRICS")
		})
	}
}

// With METRICS_ADDR the server serves its metrics there, and not on the
// API's port; they count its DynamoDB and DynamoDB Streams calls and its
// requests.
func TestServeMetricsOnTheirOwnListener(t *testing.T) {
	localTable(t)
	metricsPort := freePort(t)
	t.Setenv("METRICS_ADDR", "127.0.0.1:"+metricsPort)
	t.Setenv("STREAM_POLL_INTERVAL", "50ms")
	api, _ := startServe(t)
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
