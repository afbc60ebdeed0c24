package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fracti/api/metrics"
	"github.com/stretchr/testify/require"
)

func TestStreamMetrics(t *testing.T) {
	m := metrics.New()
	up := false
	m.ObserveStream(func() bool { return up }, func() int { return 3 })
	m.LiveFallback(true)
	m.LiveFallback(false)
	m.LiveFallback(true)
	var none *metrics.Metrics
	none.LiveFallback(true) // metrics off: nothing, no panic
	none.ObserveStream(nil, nil)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, line := range []string{"fracti_live_stream_fallback 1", "fracti_live_stream_fallbacks_total 2",
		"fracti_live_broker_up 0", "fracti_stream_leases_held 3"} {
		require.True(t, strings.Contains(string(body), line+"\n"), "%s in\n%s", line, body)
	}
}
