package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// metricsAPI is a test server with metrics on, its store's client measured
// by them, and DynamoDB throttling that a test can arm: the next n attempts
// of TransactWriteItems are refused with ProvisionedThroughputExceededException,
// as DynamoDB refuses them, so the SDK's retryer retries them.
type metricsAPI struct {
	*apitest.API
	throttle atomic.Int32
}

func newMetricsAPI(t *testing.T, opts ...apitest.Option) *metricsAPI {
	a := &metricsAPI{}
	m := metrics.New()
	throttle := dynamotest.ThrottleWhen(func(op string, _ int) bool {
		return op == "TransactWriteItems" && a.throttle.Add(-1) >= 0
	})
	a.API = apitest.NewWithClientOptions(t, []func(*dynamodb.Options){m.DynamoDB(), throttle.Option()},
		append(opts, apitest.Metrics(m))...)
	return a
}

// scrape reads /metrics over HTTP.
func (a *metricsAPI) scrape(t *testing.T) scrape.Metrics {
	t.Helper()
	return scrape.Get(t, strings.TrimSuffix(a.URL(), "/graphql")+"/metrics")
}

// requireCallsMatch checks that the metrics counted, per operation, exactly
// the DynamoDB calls the Counter on the same client counted.
func (a *metricsAPI) requireCallsMatch(t *testing.T) {
	t.Helper()
	var got scrape.Metrics
	ok := assertEventually(func() bool {
		got = a.scrape(t)
		want := a.Calls.ByOperation()
		total := 0
		for op, n := range want {
			total += n
			if got.Sum("fracti_dynamodb_calls_total", scrape.Labels{"operation": op}) != float64(n) {
				return false
			}
		}
		return got.Sum("fracti_dynamodb_calls_total", nil) == float64(total)
	})
	require.True(t, ok, "DynamoDB calls by operation: counted %v, metrics %v", a.Calls.ByOperation(), got.LabelValues("fracti_dynamodb_calls_total", "operation"))
}

// assertEventually polls cond for a few seconds: a call made in the
// background may be counted by one middleware a moment before the other.
func assertEventually(cond func() bool) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// errorCodes are the extensions.code of a response's errors, counted.
func errorCodes(t *testing.T, body map[string]any) map[string]int {
	t.Helper()
	errs, _ := body["errors"].([]any)
	require.NotEmpty(t, errs, "errors in %v", body)
	codes := map[string]int{}
	for _, e := range errs {
		code, _ := e.(map[string]any)["extensions"].(map[string]any)["code"].(string)
		codes[code]++
	}
	return codes
}

func TestMetrics(t *testing.T) {
	api := newMetricsAPI(t)
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	url := api.URL()

	t.Run("requests per operation, and DynamoDB calls as counted on the client", func(t *testing.T) {
		before := api.scrape(t)
		calls := api.Calls.Total()
		for range 3 {
			ann.Must(nil, `query Home { me { id groups { nodes { id title } } } }`)
		}
		after := api.scrape(t)
		home := scrape.Labels{"operation": "Home", "type": "query"}
		ok := scrape.Labels{"operation": "Home", "type": "query", "status": "200", "outcome": "ok"}
		require.Equal(t, 3.0, after.Sum("fracti_graphql_requests_total", ok)-before.Sum("fracti_graphql_requests_total", ok))
		require.Equal(t, 3.0, after.Sum("fracti_graphql_requests_total", home)-before.Sum("fracti_graphql_requests_total", home))
		require.Equal(t, uint64(3), after.Count("fracti_graphql_request_duration_seconds", home)-before.Count("fracti_graphql_request_duration_seconds", home))
		require.Equal(t, uint64(3), after.Count("fracti_graphql_request_dynamodb_calls", home)-before.Count("fracti_graphql_request_dynamodb_calls", home))
		// The calls the three requests made, as each request counted them.
		made := api.Calls.Total() - calls
		require.Positive(t, made)
		require.Equal(t, float64(made), after.HistogramSum("fracti_graphql_request_dynamodb_calls", home)-before.HistogramSum("fracti_graphql_request_dynamodb_calls", home))
		api.requireCallsMatch(t)
	})

	t.Run("consumed capacity of writes and reads", func(t *testing.T) {
		before := api.scrape(t)
		ann.Expense(g, "12.50", "1001")
		ann.Must(nil, `query Screen($g: ID!) { group(id: $g) { title expenses(first: 10) { nodes { amount } } balances { net } } }`, "g", g)
		after := api.scrape(t)
		for _, op := range []string{"TransactWriteItems", "BatchGetItem"} {
			l := scrape.Labels{"operation": op}
			require.Greater(t, after.Sum("fracti_dynamodb_consumed_capacity_units_total", l), before.Sum("fracti_dynamodb_consumed_capacity_units_total", l), op)
			require.Equal(t, uint64(after.Sum("fracti_dynamodb_calls_total", l)), after.Count("fracti_dynamodb_call_duration_seconds", l), "one latency per call of %s", op)
		}
		// The screen's reads went through the request's dataloaders.
		require.Greater(t, after.Count("fracti_loader_batch_keys", nil), before.Count("fracti_loader_batch_keys", nil))
		api.requireCallsMatch(t)
	})

	t.Run("consumed capacity per GraphQL operation", func(t *testing.T) {
		before := api.scrape(t)
		ann.Must(nil, `mutation Record($g: ID!) { createExpense(input: {groupId: $g, amount: "9.00", description: "Tea", splitType: EQUAL, splits: [{userId: "1001"}]}) { id } }`, "g", g)
		ann.Must(nil, `query Screen($g: ID!) { group(id: $g) { title expenses(first: 10) { nodes { amount } } } }`, "g", g)
		after := api.scrape(t)
		capacity := func(op, typ string) float64 {
			l := scrape.Labels{"operation": op, "type": typ}
			return after.Sum("fracti_graphql_consumed_capacity_units_total", l) - before.Sum("fracti_graphql_consumed_capacity_units_total", l)
		}
		write, read := capacity("Record", "mutation"), capacity("Screen", "query")
		require.Positive(t, read)
		require.Greater(t, write, read, "a write costs more than a read of a small group")
		// Each request's share is part of what the DynamoDB calls reported
		// (background work, if any ran meanwhile, has no request).
		all := after.Sum("fracti_dynamodb_consumed_capacity_units_total", nil) - before.Sum("fracti_dynamodb_consumed_capacity_units_total", nil)
		require.LessOrEqual(t, write+read, all+1e-9)
		require.Zero(t, after.Sum("fracti_dynamodb_throttles_total", nil))
		require.Zero(t, after.Sum("fracti_dynamodb_retries_total", nil))
		api.requireCallsMatch(t)
	})

	t.Run("errors by code, each counted once", func(t *testing.T) {
		cases := []struct {
			name, body string
			header     http.Header
			status     int
			want       map[string]int
		}{
			{"not found", `{"query":"mutation Missing { joinGroup(invite: \"inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\") { id } }"}`,
				http.Header{"Authorization": {ann.Header()}}, http.StatusOK, map[string]int{"NOT_FOUND": 1}},
			{"unauthenticated", `{"query":"query Who { me { id } }"}`,
				http.Header{"Authorization": {"Bearer fracti_" + strings.Repeat("x", 43)}}, http.StatusOK, map[string]int{"UNAUTHENTICATED": 1}},
			{"bad input", `{"query":"mutation Bad { createGroup(input: {title: \"\", currency: \"USD\"}) { id } }"}`,
				http.Header{"Authorization": {ann.Header()}}, http.StatusOK, map[string]int{"BAD_USER_INPUT": 1}},
			{"a malformed request", `{"query":`, http.Header{}, http.StatusBadRequest, map[string]int{"BAD_REQUEST": 1}},
			{"a document that does not validate", `{"query":"query Nope { nothing }","operationName":"Nope"}`,
				http.Header{}, http.StatusOK, map[string]int{"GRAPHQL_VALIDATION_FAILED": 1}},
			{"a body over the limit", `{"query":"{ me { id } }","variables":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`,
				http.Header{}, http.StatusRequestEntityTooLarge, map[string]int{"BAD_USER_INPUT": 1}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := api.scrape(t)
				res, body := postGraphQL(t, url, c.body, c.header)
				require.Equal(t, c.status, res.StatusCode)
				require.Equal(t, c.want, errorCodes(t, body))
				after := api.scrape(t)
				for code, n := range c.want {
					l := scrape.Labels{"code": code}
					require.Equal(t, float64(n), after.Sum("fracti_graphql_errors_total", l)-before.Sum("fracti_graphql_errors_total", l), code)
				}
				require.Equal(t, 1.0, after.Sum("fracti_graphql_errors_total", nil)-before.Sum("fracti_graphql_errors_total", nil), "no other error counted")
				failed := scrape.Labels{"outcome": "error"}
				require.Equal(t, 1.0, after.Sum("fracti_graphql_requests_total", failed)-before.Sum("fracti_graphql_requests_total", failed))
			})
		}
		// A name no valid operation carried takes no label of its own.
		m := api.scrape(t)
		require.NotContains(t, m.LabelValues("fracti_graphql_requests_total", "operation"), "Nope")
		require.Contains(t, m.LabelValues("fracti_graphql_requests_total", "operation"), "Missing")
		require.Contains(t, m.LabelValues("fracti_graphql_requests_total", "operation"), metrics.OtherOperation)
	})

	t.Run("throttled attempts are retried and counted", func(t *testing.T) {
		before := api.scrape(t)
		calls := api.Calls.ByOperation()["TransactWriteItems"]
		api.throttle.Store(2)
		ann.CreateGroup("Throttled")
		require.Equal(t, int32(0), max(api.throttle.Load(), 0), "both throttles were used")
		after := api.scrape(t)
		l := scrape.Labels{"operation": "TransactWriteItems"}
		require.Equal(t, 1, api.Calls.ByOperation()["TransactWriteItems"]-calls, "one call, retried by the SDK")
		require.Equal(t, 1.0, after.Sum("fracti_dynamodb_calls_total", l)-before.Sum("fracti_dynamodb_calls_total", l))
		require.Equal(t, 2.0, after.Sum("fracti_dynamodb_throttles_total", l)-before.Sum("fracti_dynamodb_throttles_total", l))
		require.Equal(t, 2.0, after.Sum("fracti_dynamodb_retries_total", l)-before.Sum("fracti_dynamodb_retries_total", l))
		require.Zero(t, after.Sum("fracti_dynamodb_call_errors_total", l), "the call succeeded in the end")
		require.Greater(t, after.Sum("fracti_dynamodb_consumed_capacity_units_total", l), before.Sum("fracti_dynamodb_consumed_capacity_units_total", l))
		api.requireCallsMatch(t)
	})

	t.Run("a call that fails is counted by its code", func(t *testing.T) {
		before := api.scrape(t)
		api.throttle.Store(100) // more than any retryer tries
		res := ann.Fails("UNAVAILABLE", `mutation { createGroup(input: {title: "Never", currency: "USD"}) { id } }`)
		api.throttle.Store(0)
		require.Equal(t, http.StatusServiceUnavailable, res.Status)
		require.Equal(t, "1", res.RetryAfter)
		after := api.scrape(t)
		unavailable := scrape.Labels{"code": "UNAVAILABLE"}
		require.Equal(t, 1.0, after.Sum("fracti_graphql_errors_total", unavailable)-before.Sum("fracti_graphql_errors_total", unavailable))
		require.Zero(t, after.Sum("fracti_graphql_errors_total", scrape.Labels{"code": "INTERNAL_SERVER_ERROR"}))
		l := scrape.Labels{"operation": "TransactWriteItems", "code": "ProvisionedThroughputExceededException"}
		require.Equal(t, 1.0, after.Sum("fracti_dynamodb_call_errors_total", l)-before.Sum("fracti_dynamodb_call_errors_total", l))
		throttles := after.Sum("fracti_dynamodb_throttles_total", nil) - before.Sum("fracti_dynamodb_throttles_total", nil)
		retries := after.Sum("fracti_dynamodb_retries_total", nil) - before.Sum("fracti_dynamodb_retries_total", nil)
		require.Equal(t, float64(store.ThrottleAttempts), throttles, "every try was throttled")
		require.Equal(t, throttles-1, retries, "all but the first were retries")
	})
}

// Open subscriptions and live connections rise while they are open and fall
// back when they end, over WebSockets and server-sent events.
func TestMetricsLive(t *testing.T) {
	api := newMetricsAPI(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	gauges := func(transport string) (subs, conns float64) {
		m := api.scrape(t)
		return m.Sum("fracti_live_subscriptions", nil), m.Sum("fracti_live_connections", scrape.Labels{"transport": transport})
	}
	waitGauges := func(transport string, subs, conns float64) {
		t.Helper()
		var s, c float64
		require.True(t, assertEventually(func() bool {
			s, c = gauges(transport)
			return s == subs && c == conns
		}), "want %v subscriptions and %v %s connections, have %v and %v", subs, conns, transport, s, c)
	}
	waitGauges(metrics.TransportWebSocket, 0, 0)

	t.Run("websocket", func(t *testing.T) {
		c, err := dialWS(t, api.API, map[string]any{"Authorization": ann.Header()})
		require.NoError(t, err)
		waitGauges(metrics.TransportWebSocket, 0, 1)
		require.NoError(t, c.Subscribe(context.Background(), "1", groupEvents, map[string]any{"g": g}))
		require.NoError(t, c.Subscribe(context.Background(), "2", groupEvents, map[string]any{"g": g}))
		waitGauges(metrics.TransportWebSocket, 2, 1)
		require.NoError(t, c.Complete(context.Background(), "1"))
		waitGauges(metrics.TransportWebSocket, 1, 1)
		require.NoError(t, c.Close())
		waitGauges(metrics.TransportWebSocket, 0, 0)
	})

	t.Run("server-sent events", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"query": groupEvents, "variables": map[string]any{"g": g}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.URL(), strings.NewReader(string(body)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", ann.Header())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		waitGauges(metrics.TransportSSE, 1, 1)
		ann.Expense(g, "10.00", "1001")
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() && !strings.Contains(lines.Text(), "EXPENSE_CREATED") {
		}
		cancel()
		_ = resp.Body.Close()
		waitGauges(metrics.TransportSSE, 0, 0)
	})
}

// Without metrics there is no /metrics; with them served elsewhere, neither.
func TestMetricsRoute(t *testing.T) {
	s := dynamotest.Store(t)
	for name, cfg := range map[string]httpapi.Config{
		"off":       {Store: s},
		"elsewhere": {Store: s, Metrics: metrics.New(), MetricsElsewhere: true},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := http.Get(serve(t, cfg) + "/metrics")
			require.NoError(t, err)
			_ = res.Body.Close()
			require.Equal(t, http.StatusNotFound, res.StatusCode)
		})
	}
	m := scrape.Get(t, serve(t, httpapi.Config{Store: s, Metrics: metrics.New()})+"/metrics")
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "fracti_live_subscriptions"} {
		require.True(t, m.Has(name), name)
	}
}
