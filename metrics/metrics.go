// Package metrics owns the server's Prometheus metrics: their registry,
// their definitions, and the hooks the other packages are given to feed
// them (an SDK middleware for DynamoDB, plain functions for the loaders,
// the live hub and the HTTP handler), so that only this package imports
// Prometheus.
//
// Every method is safe on a nil *Metrics and then does nothing, so that a
// server with metrics turned off passes nil.
package metrics

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric's name.
const namespace = "fracti"

// Metrics are one server's metrics in a registry of their own (not
// Prometheus's global one, so that every test starts from zero).
type Metrics struct {
	registry *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	requestCalls    *prometheus.HistogramVec
	requestCapacity *prometheus.CounterVec
	errors          *prometheus.CounterVec
	operations      *operationNames

	dynamoCalls     *prometheus.CounterVec
	dynamoFailures  *prometheus.CounterVec
	dynamoDuration  *prometheus.HistogramVec
	dynamoRetries   *prometheus.CounterVec
	dynamoThrottles *prometheus.CounterVec
	dynamoCapacity  *prometheus.CounterVec

	loaderBatches *prometheus.HistogramVec

	liveConnections *prometheus.GaugeVec
	liveFanout      prometheus.Histogram
	liveRefused     *prometheus.CounterVec
	subscriptions   atomic.Pointer[func() int]

	jobRuns *prometheus.CounterVec

	stream *streamMetrics
}

// New returns metrics registered in a fresh registry, with the Go runtime's
// and the process's own collectors beside them.
func New() *Metrics {
	m := &Metrics{
		registry:   prometheus.NewRegistry(),
		operations: newOperationNames(MaxOperationNames),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "graphql", Name: "requests_total",
			Help: "GraphQL requests over HTTP, by operation name and type, HTTP status, and outcome (ok: no error in the response; error: at least one).",
		}, []string{"operation", "type", "status", "outcome"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "graphql", Name: "request_duration_seconds",
			Help:    "Time to answer a GraphQL request over HTTP, by operation name and type.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"operation", "type"}),
		requestCalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "graphql", Name: "request_dynamodb_calls",
			Help:    "DynamoDB calls one GraphQL request over HTTP made, the credential check included, by operation name and type.",
			Buckets: []float64{0, 1, 2, 3, 5, 10, 20, 50, 100, 250},
		}, []string{"operation", "type"}),
		requestCapacity: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "graphql", Name: "consumed_capacity_units_total",
			Help: "Capacity units DynamoDB reported consumed by GraphQL requests over HTTP (the credential check included), by operation name and type: what each operation costs on the bill.",
		}, []string{"operation", "type"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "graphql", Name: "errors_total",
			Help: "GraphQL errors returned to clients (over HTTP and live connections), by extensions.code.",
		}, []string{"code"}),
		dynamoCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "dynamodb", Name: "calls_total",
			Help: "DynamoDB and DynamoDB Streams calls, by operation; a call counts once however many attempts it took.",
		}, []string{"operation"}),
		dynamoFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "dynamodb", Name: "call_errors_total",
			Help: "DynamoDB calls that failed after any retries, by operation and error code.",
		}, []string{"operation", "code"}),
		dynamoDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "dynamodb", Name: "call_duration_seconds",
			Help:    "Time a DynamoDB call took, its retries and their backoff included, by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation"}),
		dynamoRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "dynamodb", Name: "retries_total",
			Help: "DynamoDB attempts beyond each call's first (the SDK's retries), by operation.",
		}, []string{"operation"}),
		dynamoThrottles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "dynamodb", Name: "throttles_total",
			Help: "DynamoDB attempts refused for throughput (ProvisionedThroughputExceededException, ThrottlingException, RequestLimitExceeded, LimitExceededException), by operation.",
		}, []string{"operation"}),
		dynamoCapacity: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "dynamodb", Name: "consumed_capacity_units_total",
			Help: "Capacity units DynamoDB reported consumed (ReturnConsumedCapacity TOTAL, summed over tables and indexes), by operation.",
		}, []string{"operation"}),
		loaderBatches: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "loader", Name: "batch_keys",
			Help:    "Keys per batch read a request's dataloader made, by loader.",
			Buckets: []float64{1, 2, 3, 5, 10, 20, 50, 100},
		}, []string{"loader"}),
		liveConnections: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "live", Name: "connections",
			Help: "Live connections open on this instance, by transport (websocket, sse, multipart).",
		}, []string{"transport"}),
		liveFanout: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "live", Name: "fanout_seconds",
			Help:    "Time from the hub taking a batch of a group's events to the last of their frames written to this instance's WebSocket subscribers (the server's share of a fan-out).",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
		liveRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "live", Name: "connections_refused_total",
			Help: "Live connections refused with 503 because this instance held as many as LIVE_MAX_CONNECTIONS allows, by transport.",
		}, []string{"transport"}),
	}
	subscriptions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "live", Name: "subscriptions",
		Help: "Subscriptions open on this instance.",
	}, func() float64 {
		if count := m.subscriptions.Load(); count != nil {
			return float64((*count)())
		}
		return 0
	})
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestDuration, m.requestCalls, m.requestCapacity, m.errors,
		m.dynamoCalls, m.dynamoFailures, m.dynamoDuration, m.dynamoRetries, m.dynamoThrottles, m.dynamoCapacity,
		m.loaderBatches, m.liveConnections, m.liveRefused, m.liveFanout, subscriptions,
	)
	m.jobRuns = newJobRuns()
	m.registry.MustRegister(m.jobRuns)
	m.stream = newStreamMetrics(m.registry)
	// Every transport shows from the start, at 0.
	for _, t := range []string{TransportWebSocket, TransportSSE, TransportMultipart} {
		m.liveConnections.WithLabelValues(t)
		m.liveRefused.WithLabelValues(t)
	}
	return m
}

// Handler serves the metrics in Prometheus's text format (or OpenMetrics,
// when the scraper asks for it); nil metrics answer 404.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Transports of live connections, the values of fracti_live_connections'
// transport label.
const (
	TransportWebSocket = "websocket"
	TransportSSE       = "sse"
	TransportMultipart = "multipart" // Apollo's multipart subscriptions over HTTP
)

// LiveConnectionOpened counts a live connection of the transport as open
// until the returned function is called (once; further calls do nothing).
func (m *Metrics) LiveConnectionOpened(transport string) (closed func()) {
	if m == nil {
		return func() {}
	}
	g := m.liveConnections.WithLabelValues(transport)
	g.Inc()
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			g.Dec()
		}
	}
}

// LiveConnectionRefused counts a live connection of the transport refused
// because the instance holds as many as it may.
func (m *Metrics) LiveConnectionRefused(transport string) {
	if m == nil {
		return
	}
	m.liveRefused.WithLabelValues(transport).Inc()
}

// CountSubscriptions makes fracti_live_subscriptions read count, such as
// the live hub's Count, at every scrape (replacing any count set before).
func (m *Metrics) CountSubscriptions(count func() int) {
	if m == nil || count == nil {
		return
	}
	m.subscriptions.Store(&count)
}

// ObserveLoaderBatch records the number of keys one batch read of the
// named loader asked for; it has the shape loaders.BatchObserver takes.
func (m *Metrics) ObserveLoaderBatch(loader string, keys int) {
	if m == nil {
		return
	}
	m.loaderBatches.WithLabelValues(loader).Observe(float64(keys))
}

// ObserveLiveFanout records the server's share of one fan-out (the shape
// live.Hub.ObserveFanout takes).
func (m *Metrics) ObserveLiveFanout(d time.Duration) {
	if m == nil {
		return
	}
	m.liveFanout.Observe(d.Seconds())
}
