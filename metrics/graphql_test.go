package metrics

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Operation names label their own series only while they are plain,
// bounded, and among the first names valid operations carried.
func TestOperationNames(t *testing.T) {
	n := newOperationNames(3)
	require.Equal(t, AnonymousOperation, n.label("", true))
	require.Equal(t, "Home", n.label("Home", true))
	require.Equal(t, OtherOperation, n.label("Unseen", false), "a name from a request refused before its operation was found is not admitted")
	require.Equal(t, "Home", n.label("Home", false), "a name admitted before keeps its label")
	require.Equal(t, OtherOperation, n.label("not a name", true))
	require.Equal(t, OtherOperation, n.label("Ünicode", true))
	require.Equal(t, OtherOperation, n.label(strings.Repeat("a", 65), true))
	require.Equal(t, strings.Repeat("a", 64), n.label(strings.Repeat("a", 64), true))
	require.Equal(t, "_private2", n.label("_private2", true))
	for i := range 10 {
		require.Equal(t, OtherOperation, n.label("Extra"+strconv.Itoa(i), true), "past the bound")
	}
	require.Equal(t, "Home", n.label("Home", true))
	require.Len(t, n.known, 3)
}

func TestErrorCodeLabels(t *testing.T) {
	m := New()
	for _, code := range []string{"NOT_FOUND", "NOT_FOUND", "", "lower", "GRAPHQL_VALIDATION_FAILED"} {
		m.CountError(code)
	}
	families, err := m.registry.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() == "fracti_graphql_errors_total" {
			for _, s := range f.GetMetric() {
				got[s.GetLabel()[0].GetValue()] = s.GetCounter().GetValue()
			}
		}
	}
	require.Equal(t, map[string]float64{"NOT_FOUND": 2, "OTHER": 2, "GRAPHQL_VALIDATION_FAILED": 1}, got)
}

// A nil *Metrics (metrics off) takes every call and does nothing.
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.ObserveRequest(Request{Operation: "Home", Type: "query", Status: 200})
	m.CountError("NOT_FOUND")
	m.ObserveLoaderBatch("items", 3)
	m.CountSubscriptions(func() int { return 1 })
	m.LiveConnectionOpened(TransportSSE)()
	m.DynamoDB()(nil)
	m.DynamoDBStreams()(nil)
}
