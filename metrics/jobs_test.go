package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fracti/api/metrics"
	"github.com/stretchr/testify/require"
)

func TestJobRuns(t *testing.T) {
	m := metrics.New()
	m.JobRun("recurring", "ok")
	m.JobRun("recurring", "ok")
	m.JobRun("recurring", "panic")
	var none *metrics.Metrics
	none.JobRun("recurring", "ok") // metrics off: nothing, no panic

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	require.True(t, strings.Contains(string(body), `fracti_jobs_runs_total{job="recurring",outcome="ok"} 2`), string(body))
	require.True(t, strings.Contains(string(body), `fracti_jobs_runs_total{job="recurring",outcome="panic"} 1`))
}
