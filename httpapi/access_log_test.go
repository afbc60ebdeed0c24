package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// lines are the JSON log lines with the given message, decoded.
func (s *syncBuffer) lines(t *testing.T, msg string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(s.b.Bytes()))
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		if line["msg"] == msg {
			out = append(out, line)
		}
	}
	return out
}

// postGraphQL sends a GraphQL request and returns the response and its decoded body.
func postGraphQL(t *testing.T, url, body string, header http.Header) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return res, out
}

// Every request gets one access log line, with its id, operation, user,
// status, duration and DynamoDB calls, and never its token or body; the id
// comes back in a header and in every error.
func TestAccessLog(t *testing.T) {
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{CursorSecret: []byte("log")})
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: "4242", Name: "Logan"})
	require.NoError(t, err)
	logs := &syncBuffer{}
	url := serve(t, httpapi.Config{Store: s, Log: slog.New(slog.NewJSONHandler(logs, nil))}) + "/graphql"
	signedIn := http.Header{"Authorization": {"Bearer " + token}}
	const query = `query Home { me { id name } }`

	t.Run("a signed-in query", func(t *testing.T) {
		res, body := postGraphQL(t, url, `{"query":"`+query+`"}`, signedIn)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Nil(t, body["errors"])
		id := res.Header.Get("X-Request-Id")
		require.Regexp(t, `^[0-9a-f]{32}$`, id)

		var line map[string]any
		for _, l := range logs.lines(t, "request") {
			if l["request_id"] == id {
				require.Nil(t, line, "one access line per request")
				line = l
			}
		}
		require.NotNil(t, line, "the access line of request %s", id)
		require.Equal(t, "INFO", line["level"])
		require.Equal(t, "Home", line["operation"])
		require.Equal(t, "4242", line["user"])
		require.EqualValues(t, 200, line["status"])
		require.Greater(t, line["duration_ms"], 0.0)
		require.GreaterOrEqual(t, line["dynamodb_calls"], 1.0, "the token lookup at least")
		require.NotContains(t, logs.String(), token)
		require.NotContains(t, logs.String(), "me { id name }")
	})

	t.Run("the caller's request id is kept when it is a plain id", func(t *testing.T) {
		res, _ := postGraphQL(t, url, `{"query":"{ __typename }"}`, http.Header{"X-Request-Id": {"lb-7f3a.42"}})
		require.Equal(t, "lb-7f3a.42", res.Header.Get("X-Request-Id"))
		for _, bad := range []string{"two words", strings.Repeat("a", 65), `"quoted"`} {
			res, _ := postGraphQL(t, url, `{"query":"{ __typename }"}`, http.Header{"X-Request-Id": {bad}})
			require.Regexp(t, `^[0-9a-f]{32}$`, res.Header.Get("X-Request-Id"), "replaced: %q", bad)
		}
	})

	t.Run("errors carry the request id", func(t *testing.T) {
		for name, c := range map[string]struct {
			body   string
			status int
			code   string
		}{
			"no credentials":   {`{"query":"{ me { id } }"}`, http.StatusOK, "UNAUTHENTICATED"},
			"a parse error":    {`{"query":"{ me {"}`, http.StatusOK, "GRAPHQL_PARSE_FAILED"},
			"a malformed body": {`{"query":`, http.StatusBadRequest, "BAD_REQUEST"},
		} {
			res, body := postGraphQL(t, url, c.body, http.Header{})
			require.Equal(t, c.status, res.StatusCode, name)
			errs, _ := body["errors"].([]any)
			require.NotEmpty(t, errs, name)
			ext := errs[0].(map[string]any)["extensions"].(map[string]any)
			require.Equal(t, c.code, ext["code"], name)
			require.Equal(t, res.Header.Get("X-Request-Id"), ext["requestId"], name)
			found := false
			for _, l := range logs.lines(t, "request") {
				if l["request_id"] == ext["requestId"] {
					found = true
					require.EqualValues(t, c.status, l["status"], name)
				}
			}
			require.True(t, found, "%s: the access line", name)
		}
	})
}

// liveLines are the log lines of live connections that have ended.
func liveLines(t *testing.T, logs *syncBuffer, transport string) []map[string]any {
	var out []map[string]any
	for _, l := range logs.lines(t, "live connection") {
		if l["transport"] == transport {
			out = append(out, l)
		}
	}
	return out
}

// A live connection gets one log line when it ends: its request id,
// transport, user, how long it lasted, and who ended it.
func TestLiveConnectionLog(t *testing.T) {
	logs := &syncBuffer{}
	api := apitest.New(t, apitest.Live(), func(c *httpapi.Config) { c.Log = slog.New(slog.NewJSONHandler(logs, nil)) })
	ann := api.User("1001", "Ann")

	c, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.NoError(t, err)
	require.NoError(t, c.Subscribe(context.Background(), "1", `subscription { myEvents { id } }`, nil))
	require.NoError(t, c.Close())
	_, err = dialWS(t, api, map[string]any{"Authorization": "Bearer fracti_" + strings.Repeat("x", 43)})
	require.Error(t, err)
	require.Eventually(t, func() bool { return len(liveLines(t, logs, "websocket")) == 2 }, 10*time.Second, 20*time.Millisecond)
	ws := liveLines(t, logs, "websocket")
	byUser := map[string]map[string]any{}
	for _, l := range ws {
		byUser[l["user"].(string)] = l
		require.Regexp(t, `^[0-9a-f]{32}$`, l["request_id"])
		require.GreaterOrEqual(t, l["duration_s"], 0.0)
	}
	require.Equal(t, "client", byUser["1001"]["ended_by"])
	require.Contains(t, byUser[""]["ended_by"], "server: Forbidden", "refused credentials")

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.URL(), strings.NewReader(`{"query":"subscription { myEvents { id } }"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", ann.Header())
	req.Header.Set("X-Request-Id", "sse-1")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, "sse-1", res.Header.Get("X-Request-Id"))
	cancel()
	_ = res.Body.Close()
	require.Eventually(t, func() bool { return len(liveLines(t, logs, "sse")) == 1 }, 10*time.Second, 20*time.Millisecond)
	sse := liveLines(t, logs, "sse")[0]
	require.Equal(t, "sse-1", sse["request_id"])
	require.Equal(t, "1001", sse["user"])
	require.Equal(t, "client", sse["ended_by"])
	require.NotContains(t, logs.String(), strings.TrimPrefix(ann.Header(), "Bearer "), "never the token")
}
