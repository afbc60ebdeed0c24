package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/playground"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func now() time.Time { return time.Now() }

// getJSON gets url and decodes its JSON body.
func getJSON(t *testing.T, url string) (int, map[string]string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	var body map[string]string
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	return res.StatusCode, body
}

// Liveness reads nothing; readiness checks the table and says why it is
// not ready, in the response and in the log.
func TestHealthAndReadiness(t *testing.T) {
	srv, s := server(t)
	status, body := getJSON(t, srv.URL+"/healthz")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "ok", body["status"])
	status, body = getJSON(t, srv.URL+"/readyz")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, map[string]string{"status": "ready", "table": s.Table()}, body)

	unreachable, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: "http://127.0.0.1:1"})
	require.NoError(t, err)
	for name, c := range map[string]struct {
		store  *store.Store
		reason string
	}{
		"no such table": {store.New(dynamotest.Client(t), "no-such-table", store.Options{}), "table no-such-table does not exist"},
		"no DynamoDB":   {store.New(unreachable, "FractiTable", store.Options{}), "DynamoDB is unreachable: "},
	} {
		t.Run(name, func(t *testing.T) {
			var logged strings.Builder
			url := serve(t, httpapi.Config{Store: c.store, Log: slog.New(slog.NewTextHandler(&logged, nil))})

			status, body := getJSON(t, url+"/healthz")
			require.Equal(t, http.StatusOK, status, "a DynamoDB outage must not get the process restarted")
			require.Equal(t, "ok", body["status"])

			status, body = getJSON(t, url+"/readyz")
			require.Equal(t, http.StatusServiceUnavailable, status)
			require.Equal(t, "unavailable", body["status"])
			require.Contains(t, body["reason"], c.reason)
			require.Contains(t, logged.String(), "level=WARN msg=\"not ready\"")
			require.Contains(t, logged.String(), c.reason)
		})
	}
}

func serve(t *testing.T, cfg httpapi.Config) string {
	srv := httptestServer(httpapi.New(cfg))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestBodyLimit(t *testing.T) {
	srv, _ := server(t)
	big := `{"query":"{ me { id } }","variables":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
	res, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(big))
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	body, _ := io.ReadAll(res.Body)
	require.Contains(t, string(body), `"code":"BAD_USER_INPUT"`)
}

func TestCORS(t *testing.T) {
	srv, _ := server(t)
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/graphql", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, "https://app.example", res.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")), "authorization")

	req.Header.Set("Origin", "https://evil.example")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
}

// TestPlayground: when enabled, the page, its assets and the icon are
// served; when not, none of them is (the browser test drives the page).
func TestPlayground(t *testing.T) {
	s := store.New(dynamotest.Client(t), "unused", store.Options{})
	on := serve(t, httpapi.Config{Store: s, Playground: true})
	res, err := http.Get(on + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, string(body), `data-endpoint="/graphql"`)
	assets := regexp.MustCompile(`(?:src|href)="(`+playground.AssetsPath+`[^"]+)"`).FindAllStringSubmatch(string(body), -1)
	require.NotEmpty(t, assets)
	paths := []string{"/favicon.ico"}
	for _, a := range assets {
		paths = append(paths, a[1])
	}
	for _, p := range paths {
		res, err := http.Get(on + p)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, p)
	}

	off := serve(t, httpapi.Config{Store: s})
	for _, p := range append(paths, "/") {
		res, err = http.Get(off + p)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusNotFound, res.StatusCode, p)
	}
}

// faulty is a server whose DynamoDB client fails reads the way inject says,
// for a signed-in user "111" who created one group.
func faulty(t *testing.T, inject func(op string) error) (client, string) {
	var armed bool
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if armed {
			return inject(op)
		}
		return nil
	})
	c, group := serveWithClient(t, fault.Option())
	armed = true
	return c, group
}

// serveWithClient is a server whose DynamoDB client has the option (faults to
// inject), for a signed-in user "111" who created one group.
func serveWithClient(t *testing.T, option func(*dynamodb.Options)) (client, string) {
	s := store.New(dynamotest.Client(t, option), dynamotest.Table(t), store.Options{})
	token, _ := auth.NewToken()
	_, err := s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: "111", Name: "Alice"})
	require.NoError(t, err)
	g, _, err := s.CreateGroup(context.Background(), store.NewGroup{Title: "T", Currency: usd(), Creator: store.NewMember{UserID: "111", Name: "Alice"}})
	require.NoError(t, err)
	return client{t, serve(t, httpapi.Config{Store: s}), "Bearer " + token}, g.ID
}

func TestThrottledWriteIsUnavailableAndWritesNothing(t *testing.T) {
	var throttleAll atomic.Bool
	throttle := dynamotest.ThrottleWhen(func(op string, attempt int) bool {
		return op == "TransactWriteItems" && (throttleAll.Load() || attempt == 2 || attempt == 3)
	})
	c, group := serveWithClient(t, throttle.Option())
	add := `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "9.00", description: "Taxi", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`
	list := `query($g: ID!) { group(id: $g) { expenses { nodes { description } } } }`

	// The group's creation took the first try; the next two are throttled and retried.
	res := c.do(add, map[string]any{"g": group})
	require.Empty(t, res.Errors)
	require.Equal(t, 4, throttle.Attempts("TransactWriteItems"))

	throttleAll.Store(true)
	status, retryAfter, res := c.post(add, map[string]any{"g": group})
	require.Equal(t, http.StatusServiceUnavailable, status, "the mutation produced nothing")
	require.Equal(t, "1", retryAfter)
	require.Nil(t, res.Data)
	require.Len(t, res.Errors, 1)
	require.Equal(t, graph.CodeUnavailable, res.Errors[0].Extensions["code"])
	require.Equal(t, 1.0, res.Errors[0].Extensions["retryAfter"])
	require.Contains(t, res.Errors[0].Message, "try again")
	require.Equal(t, 4+store.ThrottleAttempts, throttle.Attempts("TransactWriteItems"), "tried ThrottleAttempts times")
	require.JSONEq(t, `{"group": {"expenses": {"nodes": [{"description": "Taxi"}]}}}`, string(c.do(list, map[string]any{"g": group}).Data),
		"the throttled expense was not written")
}

// A DynamoDB error that is not an outage (here a request DynamoDB refuses as
// invalid: our bug) is INTERNAL_SERVER_ERROR, with nothing of it shown.
func TestDatabaseFailureIsAnInternalErrorWithNothingInternal(t *testing.T) {
	c, group := faulty(t, func(op string) error {
		if op == "Query" {
			return &smithy.GenericAPIError{Code: "ValidationException", Message: "DynamoDB exploded: table FractiTable partition 7"}
		}
		return nil
	})
	res := c.do(`query($g: ID!) { group(id: $g) { title expenses { nodes { id } } } }`, map[string]any{"g": group})
	require.Len(t, res.Errors, 1)
	require.Equal(t, "INTERNAL_SERVER_ERROR", res.Errors[0].Extensions["code"])
	require.NotContains(t, res.Errors[0].Message, "DynamoDB")
	require.NotContains(t, res.Errors[0].Message, "FractiTable")
	require.JSONEq(t, `{"group": null}`, string(res.Data), "a non-null field's failure nulls its parent")
}

func TestPanicIsAnInternalErrorNotADroppedConnection(t *testing.T) {
	c, group := faulty(t, func(op string) error {
		if op == "Query" {
			panic("boom")
		}
		return nil
	})
	res := c.do(`query($g: ID!) { group(id: $g) { title expenses { nodes { id } } } }`, map[string]any{"g": group})
	require.Len(t, res.Errors, 1)
	require.Equal(t, "INTERNAL_SERVER_ERROR", res.Errors[0].Extensions["code"])
	require.NotContains(t, res.Errors[0].Message, "boom")
}
