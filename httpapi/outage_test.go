package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// outageAPI is a server whose DynamoDB client reaches DynamoDB Local
// through a network that stages outages, with metrics on; user "111",
// signed in by an access token the server has already looked up (and
// remembers), created one group.
type outageAPI struct {
	client
	net    *dynamotest.Network
	direct *store.Store // the same table, reached without the network
	group  string
}

// newOutageAPI starts an outageAPI whose client gives each try of a call
// attemptTimeout (0: the default).
func newOutageAPI(t *testing.T, attemptTimeout time.Duration) *outageAPI {
	t.Helper()
	n := dynamotest.NewNetwork(t)
	table := dynamotest.Table(t)
	m := metrics.New()
	opts := store.Options{CursorSecret: []byte("outage")}
	direct := store.New(dynamotest.Client(t), table, opts)
	g, _, err := direct.CreateGroup(context.Background(), store.NewGroup{Title: "Trip", Currency: usd(), Creator: store.NewMember{UserID: "111", Name: "Alice"}})
	require.NoError(t, err)
	url := serve(t, httpapi.Config{Store: store.New(n.Client(t, attemptTimeout, m.DynamoDB()), table, opts), Metrics: m})
	a := &outageAPI{client: client{t, url, newBearer(t, direct, "111", "Alice")}, net: n, direct: direct, group: g.ID}
	a.must(nil, `{ me { id } }`, nil)
	return a
}

// newBearer is the Authorization header of a new access token of the user's.
func newBearer(t *testing.T, s *store.Store, userID, name string) string {
	t.Helper()
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: userID, Name: name})
	require.NoError(t, err)
	return "Bearer " + token
}

func (a *outageAPI) scrape() scrape.Metrics { return scrape.Get(a.t, a.url+"/metrics") }

const (
	outageScreen = `query Screen($g: ID!) { group(id: $g) { title expenses { nodes { id } } } }`
	outageAdd    = `mutation Add($g: ID!, $k: String) { createExpense(input: {groupId: $g, amount: "9.00", description: "Taxi",
		splitType: EQUAL, splits: [{userId: "111"}], idempotencyKey: $k}) { id } }`
	outageList = `query List($g: ID!) { group(id: $g) { expenses { nodes { id } } } }`
)

// expenseIDs lists the group's expenses, read past the network.
func (a *outageAPI) expenseIDs() []string {
	a.t.Helper()
	page, err := a.direct.ListExpenses(context.Background(), a.group, store.PageArgs{First: 10})
	require.NoError(a.t, err)
	ids := []string{}
	for _, e := range page.Items {
		ids = append(ids, e.ID)
	}
	return ids
}

// add sends outageAdd with the idempotency key and, once it succeeds,
// returns the expense's id.
func (a *outageAPI) add(key string) string {
	a.t.Helper()
	var out struct{ CreateExpense struct{ ID string } }
	a.must(&out, outageAdd, map[string]any{"g": a.group, "k": key})
	return out.CreateExpense.ID
}

// requireUnavailable sends an operation that DynamoDB being out of reach
// leaves without data, and checks the answer: HTTP 503 with Retry-After,
// no data, and every error UNAVAILABLE with extensions.retryAfter and
// nothing of the cause. It returns how many errors there were.
func (a *outageAPI) requireUnavailable(query string, vars map[string]any) int {
	a.t.Helper()
	status, retryAfter, res := a.post(query, vars)
	require.Equal(a.t, http.StatusServiceUnavailable, status, "%+v", res)
	require.Equal(a.t, "3", retryAfter)
	require.Nil(a.t, res.Data, "a 503 carries no data")
	require.NotEmpty(a.t, res.Errors)
	for _, e := range res.Errors {
		require.Equal(a.t, graph.CodeUnavailable, e.Extensions["code"], e.Message)
		require.Equal(a.t, 3.0, e.Extensions["retryAfter"])
		require.Equal(a.t, "the database cannot be reached right now: try again in a moment", e.Message)
	}
	return len(res.Errors)
}

// Each outage, after the SDK's retries, answers a query and a mutation
// UNAVAILABLE with HTTP 503 and Retry-After, counted as UNAVAILABLE in the
// metrics and never as INTERNAL_SERVER_ERROR; the mutation wrote nothing,
// and sent again with the same idempotency key once DynamoDB is back, it
// makes exactly one expense.
func TestOutageIsUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outage  dynamotest.Outage
		timeout time.Duration // of each try
	}{
		{"connection refused", dynamotest.Refused, 0},
		{"connection reset", dynamotest.Reset, 0},
		{"HTTP 500", dynamotest.ServerError, 0},
		{"no answer", dynamotest.Hang, 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newOutageAPI(t, tc.timeout)
			before := a.scrape()
			a.net.Set(tc.outage)
			errs := a.requireUnavailable(outageScreen, map[string]any{"g": a.group})
			errs += a.requireUnavailable(outageAdd, map[string]any{"g": a.group, "k": "taxi-1"})

			after := a.scrape()
			unavailable, internal := scrape.Labels{"code": graph.CodeUnavailable}, scrape.Labels{"code": graph.CodeInternal}
			require.Equal(t, float64(errs), after.Sum("fracti_graphql_errors_total", unavailable)-before.Sum("fracti_graphql_errors_total", unavailable))
			require.Zero(t, after.Sum("fracti_graphql_errors_total", internal))
			served503 := scrape.Labels{"status": "503", "outcome": "error"}
			require.Equal(t, 2.0, after.Sum("fracti_graphql_requests_total", served503)-before.Sum("fracti_graphql_requests_total", served503))
			require.Positive(t, after.Sum("fracti_dynamodb_call_errors_total", nil), "the failed DynamoDB calls are counted too")

			a.net.Set(dynamotest.Up)
			require.Empty(t, a.expenseIDs(), "the mutation wrote nothing")
			id := a.add("taxi-1")
			require.Equal(t, id, a.add("taxi-1"))
			require.Equal(t, []string{id}, a.expenseIDs(), "one expense")
		})
	}
}

// A write DynamoDB carried out whose answer was lost on the way back is
// UNAVAILABLE too, though done, whole; sent again with the same idempotency
// key it answers the expense it made, and makes no other.
func TestOutageAnswerLostThenRetried(t *testing.T) {
	a := newOutageAPI(t, 0)
	a.net.Set(dynamotest.AnswerLost)
	a.requireUnavailable(outageAdd, map[string]any{"g": a.group, "k": "taxi-1"})
	require.Positive(t, a.net.LostAnswers(), "the write reached DynamoDB")

	a.net.Set(dynamotest.Up)
	written := a.expenseIDs()
	require.Len(t, written, 1, "done, though the answer was lost")
	require.Equal(t, written[0], a.add("taxi-1"), "the retry answers the expense made the first time")
	require.Equal(t, written, a.expenseIDs(), "and makes no other")
	var list struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	a.must(&list, outageList, map[string]any{"g": a.group})
	require.Len(t, list.Group.Expenses.Nodes, 1)
	require.Zero(t, a.scrape().Sum("fracti_graphql_errors_total", scrape.Labels{"code": graph.CodeInternal}))
}

// Credentials that cannot be checked because DynamoDB is out of reach are
// neither UNAUTHENTICATED nor an internal error: UNAVAILABLE, try again.
func TestOutageWhileSigningIn(t *testing.T) {
	a := newOutageAPI(t, 0)
	bob := client{t, a.url, newBearer(t, a.direct, "222", "Bob")} // not looked up yet
	a.net.Set(dynamotest.Refused)
	(&outageAPI{client: bob}).requireUnavailable(`{ me { id } }`, nil)
	require.Zero(t, a.scrape().Sum("fracti_graphql_errors_total", scrape.Labels{"code": graph.CodeInternal}))
}

// A response with data, even in part, stays 200 (GraphQL over HTTP): only
// the fields that failed carry UNAVAILABLE, each with its retryAfter.
func TestOutagePartialDataStays200(t *testing.T) {
	a := newOutageAPI(t, 0)
	var me struct{ Me struct{ ID string } }
	a.must(&me, `{ me { id } }`, nil)
	a.net.Set(dynamotest.Refused)
	status, retryAfter, res := a.post(`query($g: ID!) { me { id } group(id: $g) { title } }`, map[string]any{"g": a.group})
	require.Equal(t, http.StatusOK, status)
	require.Empty(t, retryAfter)
	want, _ := json.Marshal(map[string]any{"me": map[string]any{"id": me.Me.ID}, "group": nil})
	require.JSONEq(t, string(want), string(res.Data))
	require.Len(t, res.Errors, 1)
	require.Equal(t, graph.CodeUnavailable, res.Errors[0].Extensions["code"])
	require.Equal(t, 3.0, res.Errors[0].Extensions["retryAfter"])
}
