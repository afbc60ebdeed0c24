package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The Accept headers real clients send by default.
const (
	acceptURQL   = "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed"
	acceptApollo = "application/graphql-response+json,application/json;q=0.9"
	// Apollo Client's HttpLink, for a subscription.
	acceptApolloSubscription = `multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/graphql-response+json,application/json;q=0.9`
)

// open sends a GraphQL POST with this Accept header and returns the
// response with its body unread; the test's end closes it.
func open(t *testing.T, url, authorization, accept, query string, vars map[string]any) *http.Response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() {
		cancel()
		_ = resp.Body.Close()
	})
	return resp
}

// mediaType is a response's media type without its parameters.
func mediaType(resp *http.Response) string {
	mt, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return strings.TrimSpace(mt)
}

// A query or a mutation is one result, in the JSON type the client prefers,
// whatever streams it also accepts; server-sent events only for a client
// that accepts no JSON at all.
func TestQueriesAndMutationsAreAnsweredInJSON(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	const mutation = `mutation { createGroup(input: {title: "Trip", currency: "USD"}) { title } }`
	for _, tc := range []struct {
		accept, query, want string
	}{
		{acceptURQL, "{ __typename }", "application/graphql-response+json"},
		{acceptURQL, mutation, "application/graphql-response+json"},
		{acceptApollo, "{ __typename }", "application/graphql-response+json"},
		{"application/json, text/event-stream", "{ __typename }", "application/json"},
		{"text/event-stream, application/json;q=0.1", "{ __typename }", "application/json"},
		{"application/graphql-response+json;q=0.5, application/json", mutation, "application/json"},
		{"multipart/mixed", "{ __typename }", "application/json"}, // no incremental delivery here
		{"", "{ __typename }", "application/json"},
		// A document that mentions subscriptions is still a query.
		{acceptURQL, "query subscriptions { __typename }", "application/graphql-response+json"},
	} {
		resp := open(t, api.URL(), ann.Header(), tc.accept, tc.query, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, "Accept: %s", tc.accept)
		require.Equal(t, tc.want, mediaType(resp), "Accept: %s", tc.accept)
		var out struct {
			Data   map[string]any
			Errors []any
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Empty(t, out.Errors)
		require.NotEmpty(t, out.Data)
	}

	// Accepting nothing but server-sent events, a query is a stream of one.
	resp := open(t, api.URL(), ann.Header(), "text/event-stream", "{ __typename }", nil)
	require.Equal(t, "text/event-stream", mediaType(resp))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), "event: next\ndata: {\"data\":{\"__typename\":\"Query\"}}\n\n")
	require.True(t, strings.HasSuffix(string(body), "event: complete\n\n"), "%s", body)
}

// A subscription gets the stream the client prefers of those it accepts.
func TestSubscriptionsGetTheStreamTheClientPrefers(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	const sub = `subscription { myEvents { id } }`
	for accept, want := range map[string]string{
		acceptURQL:               "text/event-stream",
		acceptApolloSubscription: "multipart/mixed",
		"text/event-stream":      "text/event-stream",
		"multipart/mixed;subscriptionSpec=1.0, text/event-stream":                       "multipart/mixed",
		"text/event-stream;q=0.5, multipart/mixed, application/json":                    "multipart/mixed",
		"application/json, text/event-stream;q=0.1":                                     "text/event-stream",
		"text/event-stream, multipart/mixed;subscriptionSpec=1.0":                       "text/event-stream",
		"application/json;q=0.9, multipart/mixed;boundary=graphql;subscriptionSpec=1.0": "multipart/mixed",
	} {
		resp := open(t, api.URL(), ann.Header(), accept, sub, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, "Accept: %s", accept)
		require.Equal(t, want, mediaType(resp), "Accept: %s", accept)
	}
}

// multipartParts reads a multipart subscription as Apollo Client does: a
// part is complete once the delimiter after it has come. It sends each
// part's body, and closes parts after the closing delimiter, or an error
// if the stream ends without one.
func multipartParts(t *testing.T, resp *http.Response) (parts <-chan string, ended <-chan error) {
	t.Helper()
	require.Equal(t, `multipart/mixed; boundary="graphql"; subscriptionSpec=1.0`, resp.Header.Get("Content-Type"))
	out, end := make(chan string, 100), make(chan error, 1)
	go func() {
		defer close(out)
		const delimiter = "\r\n--graphql"
		var buf []byte
		chunk := make([]byte, 4096)
		seen := false
		for {
			n, err := resp.Body.Read(chunk)
			buf = append(buf, chunk[:n]...)
			for {
				if seen && bytes.HasPrefix(buf, []byte("--")) {
					end <- nil
					return
				}
				i := bytes.Index(buf, []byte(delimiter))
				if i < 0 {
					break
				}
				if seen {
					headers, body, ok := strings.Cut(string(buf[:i]), "\r\n\r\n")
					if !ok || !strings.Contains(headers, "Content-Type: application/json; charset=utf-8") {
						end <- io.ErrUnexpectedEOF
						return
					}
					out <- body
				}
				seen, buf = true, buf[i+len(delimiter):]
			}
			if err != nil {
				end <- err
				return
			}
		}
	}()
	return out, end
}

// nextPart is the next part other than a heartbeat.
func nextPart(t *testing.T, parts <-chan string) map[string]any {
	t.Helper()
	for {
		select {
		case p, ok := <-parts:
			require.True(t, ok, "the stream ended")
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(p), &m), p)
			if len(m) > 0 {
				return m
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no part came")
		}
	}
}

// Apollo's multipart subscriptions: events as {"payload": result}, {} as a
// heartbeat, the closing delimiter at the end; a refusal is a result with
// errors, and the server ending the stream says why outside any result.
func TestMultipartSubscriptions(t *testing.T) {
	api := apitest.New(t, apitest.LiveBuffer(4), apitest.LiveLimits(httpapi.LiveLimits{PingInterval: 20 * time.Millisecond}))
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Trip")

	resp := open(t, api.URL(), ann.Header(), acceptApolloSubscription, groupEvents, map[string]any{"g": g})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	parts, ended := multipartParts(t, resp)
	for p := range parts {
		if p == "{}" {
			break // a heartbeat
		}
	}
	ann.Expense(g, "10.00", "1001")
	for {
		// Events of the group before the subscription may come first.
		event := mustJSON(t, nextPart(t, parts)["payload"])
		if strings.Contains(event, `"type":"EXPENSE_CREATED"`) {
			require.Contains(t, event, `"data":{"groupEvents":{`)
			break
		}
	}

	// The hub drops a slow consumer: the stream says so and ends.
	changes, err := api.Store.ListChanges(context.Background(), g, "", 1)
	require.NoError(t, err)
	burst := make([]store.Event, 50)
	for i := range burst {
		burst[i] = changes.Events[0]
	}
	api.Live.Publish(context.Background(), burst)
	var dropped map[string]any
	for dropped == nil {
		if m := nextPart(t, parts); m["payload"] == nil {
			dropped = m
		}
	}
	require.Len(t, dropped, 2, "payload null and errors: %v", dropped)
	errs := dropped["errors"].([]any)
	require.Equal(t, "UNAVAILABLE", errs[0].(map[string]any)["extensions"].(map[string]any)["code"])
	require.Contains(t, errs[0].(map[string]any)["message"], "slow consumer")
	for range parts {
	}
	require.NoError(t, <-ended, "the closing delimiter")

	// Refused as it starts (not a member): a result with the error, then the end.
	resp = open(t, api.URL(), ben.Header(), acceptApolloSubscription, groupEvents, map[string]any{"g": g})
	parts, ended = multipartParts(t, resp)
	refused := nextPart(t, parts)
	require.Contains(t, mustJSON(t, refused["payload"]), `"code":"NOT_FOUND"`)
	for range parts {
	}
	require.NoError(t, <-ended)

	// A request that cannot run is one JSON result, as over plain HTTP.
	resp = open(t, api.URL(), ann.Header(), acceptApolloSubscription, `subscription { nope }`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/json", mediaType(resp))
	body, _ := io.ReadAll(resp.Body)
	require.Contains(t, string(body), `"code":"GRAPHQL_VALIDATION_FAILED"`)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// curl with Accept: text/event-stream alone gets server-sent events for a
// query (one event, then complete) and for a subscription.
func TestCurlEventStream(t *testing.T) {
	curl, err := exec.LookPath("curl")
	require.NoError(t, err, "curl is needed for this test")
	api := apitest.New(t, apitest.Live())
	ann := api.User("1001", "Ann")
	g := ann.CreateGroup("Trip")
	run := func(ctx context.Context, query string) *exec.Cmd {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"g": g}})
		return exec.CommandContext(ctx, curl, "-sSN", "-H", "Accept: text/event-stream", "-H", "Content-Type: application/json",
			"-H", "Authorization: "+ann.Header(), "--data-binary", string(body), api.URL())
	}
	out, err := run(context.Background(), `query($g: ID!) { group(id: $g) { title } }`).Output()
	require.NoError(t, err)
	require.Equal(t, ":\n\nevent: next\ndata: {\"data\":{\"group\":{\"title\":\"Trip\"}}}\n\nevent: complete\n\n", string(out))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := run(ctx, groupEvents)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	ann.Expense(g, "10.00", "1001")
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "data: ") && strings.Contains(lines.Text(), "EXPENSE_CREATED") {
			return
		}
	}
	t.Fatalf("curl's stream ended without the event: %v", lines.Err())
}

// Past LIVE_MAX_CONNECTIONS, a WebSocket, an event stream and a multipart
// subscription are each refused with 503 and Retry-After before anything is
// done for them (not even their credentials are checked), and counted;
// health, readiness, metrics and plain queries answer all along.
func TestLiveConnectionCap(t *testing.T) {
	api := newMetricsAPI(t, apitest.Live(), apitest.LiveLimits(httpapi.LiveLimits{MaxConnections: 2}))
	ann := api.User("1001", "Ann")
	auth := map[string]any{"Authorization": ann.Header()}
	first, err := dialWS(t, api.API, auth)
	require.NoError(t, err)
	sse := open(t, api.URL(), ann.Header(), "text/event-stream", `subscription { myEvents { id } }`, nil)
	require.Equal(t, http.StatusOK, sse.StatusCode)

	refused := func(resp *http.Response) {
		t.Helper()
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		require.NoError(t, err)
		require.GreaterOrEqual(t, retry, 5)
		require.LessOrEqual(t, retry, 15)
		var out struct {
			Errors []struct{ Extensions struct{ Code string } }
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Equal(t, "UNAVAILABLE", out.Errors[0].Extensions.Code)
	}
	ws, resp, err := websocket.Dial(context.Background(), strings.Replace(api.URL(), "http", "ws", 1),
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	require.Error(t, err)
	require.Nil(t, ws)
	refused(resp)
	// Forged credentials: refused for the cap all the same, unread.
	refused(open(t, api.URL(), "Bearer fracti_forged", "text/event-stream", `subscription { myEvents { id } }`, nil))
	refused(open(t, api.URL(), ann.Header(), acceptApolloSubscription, `subscription { myEvents { id } }`, nil))

	for _, path := range []string{"/healthz", "/readyz"} {
		code, _ := getJSON(t, api.BaseURL()+path)
		require.Equal(t, http.StatusOK, code, path)
	}
	query := open(t, api.URL(), ann.Header(), acceptURQL, "{ me { id } }", nil)
	require.Equal(t, http.StatusOK, query.StatusCode)
	require.Equal(t, "application/graphql-response+json", mediaType(query))
	m := api.scrape(t)
	for _, transport := range []string{metrics.TransportWebSocket, metrics.TransportSSE, metrics.TransportMultipart} {
		require.Equal(t, 1.0, m.Sum("fracti_live_connections_refused_total", scrape.Labels{"transport": transport}), transport)
	}
	require.Equal(t, 2.0, m.Sum("fracti_live_connections", nil), "the two held")

	// A slot freed is a slot taken again.
	require.NoError(t, first.Close())
	require.Eventually(t, func() bool {
		c, err := dialWS(t, api.API, auth)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
}
