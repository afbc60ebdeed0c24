package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// attacked is a server under attack: its DynamoDB calls are counted and its
// log is kept, with user 111 (Alice) signed in by token and owning a group.
type attacked struct {
	t     *testing.T
	url   string
	calls *dynamotest.Counter
	log   *syncBuffer
	store *store.Store
	alice string // Authorization header
	group string
}

// syncBuffer is a log destination safe for concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newAttacked(t *testing.T, configure ...func(*httpapi.Config)) *attacked {
	t.Helper()
	calls := &dynamotest.Counter{}
	s := store.New(dynamotest.Client(t, calls.Option()), dynamotest.Table(t), store.Options{CursorSecret: []byte("hostile")})
	logs := &syncBuffer{}
	cfg := httpapi.Config{
		Store: s, BotToken: apitest.BotToken, CORSOrigins: []string{"https://app.example"},
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, c := range configure {
		c(&cfg)
	}
	a := &attacked{t: t, url: serve(t, cfg), calls: calls, log: logs, store: s}
	a.alice = a.signIn("111", "Alice")
	g, _, err := s.CreateGroup(context.Background(), store.NewGroup{Title: "Trip", Currency: usd(), Creator: store.NewMember{UserID: "111", Name: "Alice"}})
	require.NoError(t, err)
	a.group = g.ID
	calls.Reset()
	return a
}

// signIn makes an access token for a user and returns its Authorization header.
func (a *attacked) signIn(id, name string) string {
	token, err := auth.NewToken()
	require.NoError(a.t, err)
	_, err = a.store.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: id, Name: name})
	require.NoError(a.t, err)
	return "Bearer " + token
}

// reply is a raw HTTP answer.
type reply struct {
	status      int
	contentType string
	body        string
	hasData     bool
	errors      []struct {
		Message    string
		Extensions map[string]any
	}
}

func (r reply) code() string {
	if len(r.errors) == 0 {
		return ""
	}
	c, _ := r.errors[0].Extensions["code"].(string)
	return c
}

// request is one raw HTTP request to /graphql.
type request struct {
	method, contentType, accept, authorization, query string // query: the URL's query string
	body                                              string
}

func (a *attacked) send(req request) reply {
	a.t.Helper()
	if req.method == "" {
		req.method = http.MethodPost
	}
	if req.contentType == "" && req.method == http.MethodPost {
		req.contentType = "application/json"
	}
	u := a.url + "/graphql"
	if req.query != "" {
		u += "?" + req.query
	}
	r, err := http.NewRequest(req.method, u, strings.NewReader(req.body))
	require.NoError(a.t, err)
	for k, v := range map[string]string{"Content-Type": req.contentType, "Accept": req.accept, "Authorization": req.authorization} {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(r)
	require.NoError(a.t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	out := reply{status: res.StatusCode, contentType: res.Header.Get("Content-Type"), body: string(body)}
	var decoded map[string]json.RawMessage
	require.NoError(a.t, json.Unmarshal(body, &decoded), "the answer is JSON: %s", body)
	_, out.hasData = decoded["data"]
	if e, ok := decoded["errors"]; ok {
		require.NoError(a.t, json.Unmarshal(e, &out.errors))
	}
	for _, e := range out.errors {
		require.NotEmpty(a.t, e.Extensions["code"], "every error has a code: %s", body)
		require.NotEqual(a.t, "INTERNAL_SERVER_ERROR", e.Extensions["code"], "a client's mistake is not our fault: %s", body)
	}
	return out
}

// gql is a POST of one operation.
func gql(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

// fragmentBomb spreads the previous fragment twice, depth times (2^depth fields expanded).
func fragmentBomb(depth int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "query { ...F%d } fragment F0 on Query { __typename }", depth)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ...F%d }", i, i-1, i-1)
	}
	return b.String()
}

func aliased(n int, field string) string {
	var b strings.Builder
	b.WriteString("query($g: ID!) {")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	return b.String() + " }"
}

func TestUnauthenticatedAbuseIsRefusedBeforeAnyDatabaseCall(t *testing.T) {
	a := newAttacked(t)
	for _, tc := range []struct {
		name, query, code string
	}{
		{"fragment bomb at depth 30", fragmentBomb(30), "SELECTION_LIMIT_EXCEEDED"},
		{"10,000 __typename (110 KB)", "{" + strings.Repeat(" __typename", 10_000) + " }", "DOCUMENT_TOO_LARGE"},
		{"40,000 __typename", "{" + strings.Repeat(" __typename", 40_000) + " }", "DOCUMENT_TOO_LARGE"},
		{"1,400 __typename", "{" + strings.Repeat(" __typename", 1_400) + " }", "SELECTION_LIMIT_EXCEEDED"},
		{"2,500 tokens in 10 KB", "{ me {" + strings.Repeat(" id", 2_500) + " } }", "TOKEN_LIMIT_EXCEEDED"},
		{"aliases", aliased(21, "me { id }"), "ALIAS_LIMIT_EXCEEDED"},
		{"directives", "{ me { id" + strings.Repeat(" @skip(if: false)", 31) + " } }", "DIRECTIVE_LIMIT_EXCEEDED"},
		{"depth", "{ me { groups { nodes { members { nodes { group { members { nodes { group { members { nodes { id } } } } } } } } } } } }", "DEPTH_LIMIT_EXCEEDED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No credentials, or credentials that would need a lookup: neither costs a call.
			for _, authorization := range []string{"", "Bearer frt_" + strings.Repeat("x", 43)} {
				a.calls.Reset()
				res := a.send(request{body: gql(tc.query, nil), authorization: authorization})
				require.Equal(t, tc.code, res.code(), res.errors)
				require.Equal(t, http.StatusOK, res.status, "application/json answers request errors with 200")
				require.False(t, res.hasData, "nothing ran, so there is no data")
				require.Positive(t, res.errors[0].Extensions["limit"])
				require.Zero(t, a.calls.Total(), "refused before any DynamoDB call")
			}
			// The GraphQL response media type answers request errors with 400.
			res := a.send(request{body: gql(tc.query, nil), accept: "application/graphql-response+json"})
			require.Equal(t, http.StatusBadRequest, res.status)
			require.Equal(t, tc.code, res.code())
			require.False(t, res.hasData)
			require.Contains(t, res.contentType, "application/graphql-response+json")
		})
	}
	require.NotContains(t, a.log.String(), "level=ERROR")
}

func TestSignedInAmplificationIsBounded(t *testing.T) {
	a := newAttacked(t)
	vars := map[string]any{"g": a.group}
	for _, tc := range []struct {
		name, query, code string
	}{
		{"balances nested four deep", `query($g: ID!) { group(id: $g) { balances { member { balances { member { balances { member { balances { id } } } } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"300 aliases of debts", aliased(300, "group(id: $g) { debts { amount } }"), "TOKEN_LIMIT_EXCEEDED"},
		{"11 aliases of debts", aliased(11, "group(id: $g) { debts { amount } }"), "ROOT_FIELD_LIMIT_EXCEEDED"},
		{"21 aliases of debts below the root", "query($g: ID!) { group(id: $g) {" + strings.TrimSuffix(strings.TrimPrefix(aliased(21, "debts { amount }"), "query($g: ID!) {"), " }") + " } }", "ALIAS_LIMIT_EXCEEDED"},
		{"5,000 aliases of a member page", aliased(5_000, "group(id: $g) { members(first: 1) { nodes { id } } }"), "DOCUMENT_TOO_LARGE"},
		{"21 aliases of a member page", aliased(21, "group(id: $g) { members(first: 1) { nodes { id } } }"), "ALIAS_LIMIT_EXCEEDED"},
		{"pages of pages", `{ me { groups(first: 100) { nodes { expenses(first: 100) { nodes { splits { member { name } } } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"payers of every expense", `{ me { groups(first: 50) { nodes { expenses(first: 50) { nodes { payers { member { balances { net } } } } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.calls.Reset()
			res := a.send(request{body: gql(tc.query, vars), authorization: a.alice})
			require.Equal(t, tc.code, res.code(), res.errors)
			require.Zero(t, a.calls.Total(), "refused before the credentials are even looked up")
		})
	}

	// Within the limits, ten aliases of the same debts read the balances
	// once and settle up once.
	a.calls.Reset()
	res := a.send(request{body: gql(aliased(10, "group(id: $g) { debts { amount } }"), vars), authorization: a.alice})
	require.Empty(t, res.errors)
	require.LessOrEqual(t, a.calls.Total(), 5, "token, group and membership, ledger and books: %v", a.calls.ByOperation())
}

// TestDocumentedQueriesPass runs the queries the README shows (make run
// prints the first) under the default limits.
func TestDocumentedQueriesPass(t *testing.T) {
	a := newAttacked(t)
	vars := map[string]any{"g": a.group}
	for _, q := range []string{
		`{ me { name groups { nodes { id title expenses(first: 5) { nodes { description amount currency payer { name } } }
			balances { member { name } net currency } debts { from { name } to { name } amount currency } } } } }`,
		`query($g: ID!) { group(id: $g) { title memberCount
			expenses(first: 20) { edges { cursor node { id description amount currency payer { name } splits { member { name } amount } } }
			pageInfo { hasNextPage endCursor } } } }`,
		`query($g: ID!) { group(id: $g) { balances { member { name } currency paid owed sent received net }
			debts { from { name } to { name } amount currency } pairwise: debts(simplify: false) { from { name } to { name } amount currency } } }`,
		`{ me { summary { totals { currency youAreOwed youOwe net } } } }`,
		`{ me { owes(first: 10) { nodes { amount expense { description } payer { name } group { title } } } } }`,
		`{ me { activity { nodes { __typename ... on Expense { description amount } ... on Settlement { amount status } } } } }`,
	} {
		body := gql(q, nil)
		if strings.Contains(q, "$g") {
			body = gql(q, vars)
		}
		res := a.send(request{body: body, authorization: a.alice})
		require.Empty(t, res.errors, q)
	}
}

func TestCallBudget(t *testing.T) {
	a := newAttacked(t, func(c *httpapi.Config) { c.MaxDynamoDBCalls = 4 })
	for i := range 5 {
		g, _, err := a.store.CreateGroup(context.Background(), store.NewGroup{Title: fmt.Sprint("G", i), Currency: usd(),
			Creator: store.NewMember{UserID: "111", Name: "Alice"}})
		require.NoError(t, err)
		_ = g
	}
	a.calls.Reset()
	// A token lookup, the groups, then one member page per group: 8 calls.
	res := a.send(request{body: gql(`{ me { groups { nodes { members(first: 1) { nodes { id } } } } } }`, nil), authorization: a.alice})
	require.Equal(t, "CALL_BUDGET_EXCEEDED", res.code(), res.errors)
	require.Contains(t, res.errors[0].Message, "4")
	require.LessOrEqual(t, a.calls.Total(), 4, "no call beyond the budget reached DynamoDB")
	require.True(t, res.hasData, "what fit in the budget is still answered")

	// A request that fits is untouched.
	res = a.send(request{body: gql(`{ me { name } }`, nil), authorization: a.alice})
	require.Empty(t, res.errors)
}

func TestClientMistakesAreCodedRequestErrors(t *testing.T) {
	a := newAttacked(t)
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	huge := strings.Repeat("A", 900_000)
	for _, tc := range []struct {
		name   string
		req    request
		status int
		code   string
	}{
		{"malformed JSON", request{body: `{"query": "{ me { id } }"`}, 400, "BAD_REQUEST"},
		{"malformed JSON with a big body", request{body: `{"query": "` + huge}, 400, "BAD_REQUEST"},
		{"a batch", request{body: `[{"query": "{ me { id } }"}]`}, 400, "BAD_REQUEST"},
		{"not an object", request{body: `"{ me { id } }"`}, 400, "BAD_REQUEST"},
		{"a NaN variable", request{body: `{"query": "query($a: Decimal!) { me { id } }", "variables": {"a": NaN}}`}, 400, "BAD_REQUEST"},
		{"JSON nested past any decoder's depth", request{body: `{"query": "{ me { id } }", "variables": {"x": ` + deep + `}}`}, 400, "BAD_REQUEST"},
		{"variables that are not an object", request{body: `{"query": "{ me { id } }", "variables": [1]}`}, 400, "BAD_REQUEST"},
		{"a query that is not a string", request{body: `{"query": {"x": 1}}`}, 400, "BAD_REQUEST"},
		{"no query", request{body: `{"variables": {}}`}, 400, "BAD_REQUEST"},
		{"an empty body", request{body: ``}, 400, "BAD_REQUEST"},
		{"data after the object", request{body: `{"query": "{ me { id } }"} {}`}, 400, "BAD_REQUEST"},
		{"text/plain", request{contentType: "text/plain", body: gql("{ me { id } }", nil)}, 415, "BAD_REQUEST"},
		{"a form post", request{contentType: "application/x-www-form-urlencoded", body: "query=%7B+me+%7B+id+%7D+%7D"}, 415, "BAD_REQUEST"},
		{"another charset", request{contentType: "application/json; charset=latin1", body: gql("{ me { id } }", nil)}, 415, "BAD_REQUEST"},
		{"a GET mutation", request{method: http.MethodGet, query: "query=" + url.QueryEscape(`mutation { leaveGroup(groupId: "x") }`)}, 405, "BAD_REQUEST"},
		{"a PUT", request{method: http.MethodPut, body: gql("{ me { id } }", nil)}, 405, "BAD_REQUEST"},
		{"GET variables that are not JSON", request{method: http.MethodGet, query: "query=%7B+me+%7B+id+%7D+%7D&variables=%7Bx"}, 400, "BAD_REQUEST"},
		{"an APQ hash that does not match", request{body: `{"query": "{ me { id } }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "` + strings.Repeat("ab", 32) + `"}}}`}, 400, "PERSISTED_QUERY_HASH_MISMATCH"},
		{"an APQ version we do not know", request{body: `{"query": "{ me { id } }", "extensions": {"persistedQuery": {"version": 2, "sha256Hash": "` + strings.Repeat("ab", 32) + `"}}}`}, 400, "BAD_REQUEST"},
		{"a syntax error", request{body: gql("{ me { id ", nil)}, 200, "GRAPHQL_PARSE_FAILED"},
		{"an unknown field", request{body: gql("{ me { shoeSize } }", nil)}, 200, "GRAPHQL_VALIDATION_FAILED"},
		{"a variable of the wrong type", request{body: gql("query($g: ID!) { group(id: $g) { id } }", map[string]any{"g": map[string]any{}})}, 200, "GRAPHQL_VALIDATION_FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.calls.Reset()
			tc.req.authorization = a.alice
			res := a.send(tc.req)
			require.Equal(t, tc.status, res.status, res.body)
			require.Equal(t, tc.code, res.code(), res.body)
			require.NotEmpty(t, res.errors[0].Message)
			require.False(t, res.hasData, "nothing ran")
			require.Zero(t, a.calls.Total(), "no DynamoDB call for a malformed request")
		})
	}
	logs := a.log.String()
	require.NotContains(t, logs, "level=ERROR", "a client's mistake is logged at INFO at most")
	require.NotContains(t, logs, "AAAAAAAAAA", "the body is never logged")
	for line := range strings.SplitSeq(logs, "\n") {
		require.Less(t, len(line), 1000, "log lines stay short: %.200s", line)
	}
}

func TestPersistedQueries(t *testing.T) {
	a := newAttacked(t)
	const q = `{ me { id } }`
	sum := sha256.Sum256([]byte(q))
	hash := hex.EncodeToString(sum[:])
	ext := `{"persistedQuery": {"version": 1, "sha256Hash": "` + hash + `"}}`
	get := request{method: http.MethodGet, authorization: a.alice, query: "extensions=" + url.QueryEscape(ext)}

	res := a.send(get)
	require.Equal(t, "PERSISTED_QUERY_NOT_FOUND", res.code(), "Apollo's clients then send the query")
	require.Equal(t, "PersistedQueryNotFound", res.errors[0].Message)

	res = a.send(request{authorization: a.alice, body: `{"query": "` + q + `", "extensions": ` + ext + `}`})
	require.Empty(t, res.errors)
	res = a.send(get)
	require.Empty(t, res.errors)
	require.JSONEq(t, `{"data": {"me": {"id": "111"}}}`, res.body)

	// A document refused by the limits is never remembered.
	bomb := fragmentBomb(30)
	bsum := sha256.Sum256([]byte(bomb))
	bext := `{"persistedQuery": {"version": 1, "sha256Hash": "` + hex.EncodeToString(bsum[:]) + `"}}`
	body, _ := json.Marshal(map[string]any{"query": bomb, "extensions": json.RawMessage(bext)})
	require.Equal(t, "SELECTION_LIMIT_EXCEEDED", a.send(request{body: string(body)}).code())
	require.Equal(t, "PERSISTED_QUERY_NOT_FOUND", a.send(request{method: http.MethodGet, query: "extensions=" + url.QueryEscape(bext)}).code())
}

func TestResponseMediaType(t *testing.T) {
	a := newAttacked(t)
	for accept, want := range map[string]string{
		"":                                  "application/json",
		"*/*":                               "application/json",
		"application/json":                  "application/json",
		"application/graphql-response+json": "application/graphql-response+json",
		"application/graphql-response+json,application/json;q=0.9":  "application/graphql-response+json",
		"application/json, application/graphql-response+json;q=0.5": "application/json",
	} {
		res := a.send(request{body: gql("{ me { id } }", nil), accept: accept, authorization: a.alice})
		require.Equal(t, http.StatusOK, res.status)
		require.Contains(t, res.contentType, want, accept)
		require.Empty(t, res.errors)
	}
}

func TestNoCORSUnlessConfigured(t *testing.T) {
	s := store.New(dynamotest.Client(t), "unused", store.Options{})
	u := serve(t, httpapi.Config{Store: s})
	for _, origin := range []string{"https://app.example", "https://evil.example"} {
		req, _ := http.NewRequest(http.MethodOptions, u+"/graphql", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"), "no origin may call from a browser")
		req, _ = http.NewRequest(http.MethodPost, u+"/graphql", strings.NewReader(`{"query":"{ __typename }"}`))
		req.Header.Set("Origin", origin)
		req.Header.Set("Content-Type", "application/json")
		res, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
	}
}
