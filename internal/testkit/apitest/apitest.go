// Package apitest drives the whole API the way a client does: the real HTTP
// handler (auth, loaders, GraphQL) over a fresh DynamoDB Local table, with
// users signed in by access token or by Telegram init data.
package apitest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/live"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/objectstore"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/rates"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// BotToken is the Telegram bot token the test server trusts.
const BotToken = "123456:test-bot-token"

// API is a running test server.
type API struct {
	t       testing.TB
	Store   *store.Store
	Calls   *dynamotest.Counter // every DynamoDB call the server makes
	Handler *client.Client
	// Live is the hub of subscriptions when the server was started with Live.
	Live *live.Hub

	handler http.Handler
	server  *httptest.Server

	mu       sync.Mutex
	creators map[string]*User // who created each group CreateGroup made
}

// Option changes the test server's configuration.
type Option func(*httpapi.Config)

// LoaderWait sets the dataloaders' batch window.
func LoaderWait(d time.Duration) Option { return func(c *httpapi.Config) { c.LoaderWait = d } }

// Quota sets the server's daily limits and rate without credentials.
func Quota(limits quota.Limits) Option { return func(c *httpapi.Config) { c.Quota = limits } }

// InviteLinks names the Telegram bot and Mini App that invite links open.
func InviteLinks(bot, app string) Option {
	return func(c *httpapi.Config) { c.InviteLinks = graph.InviteLinks{BotUsername: bot, AppName: app} }
}

// Clock is a server clock a test moves by hand; its zero value starts at
// the real time.
type Clock = testclock.Clock

// WithClock gives the server c as its clock (init data, access token expiry).
func WithClock(c *Clock) Option { return func(cfg *httpapi.Config) { cfg.Now = c.Now } }

// Live makes the server tail its table's stream and serve subscriptions.
func Live() Option { return LiveBuffer(0) }

// LiveBuffer is Live with room for n waiting events per subscription.
func LiveBuffer(n int) Option {
	return func(c *httpapi.Config) { c.Live = live.NewHub(c.Store, n, nil) }
}

// Metrics has the handler record into m and serve it at /metrics; give the
// store's client m.DynamoDB() too (NewWithClientOptions) to measure its calls.
func Metrics(m *metrics.Metrics) Option { return func(c *httpapi.Config) { c.Metrics = m } }

// Rates converts with the providers given (nil: none), keeping their
// tables in the API's table, on the clock now.
func Rates(fiat, crypto rates.Provider, now func() time.Time) Option {
	return func(c *httpapi.Config) {
		c.Rates = &rates.Service{Keeper: c.Store, Now: now}
		if fiat != nil {
			c.Rates.Fiat = fiat
		}
		if crypto != nil {
			c.Rates.Crypto = crypto
		}
	}
}

// Receipts attaches receipts and pictures in the bucket of objects (nil:
// none, as a server without S3_BUCKET).
func Receipts(objects *objectstore.Client, o receipts.Options) Option {
	return func(c *httpapi.Config) { c.Receipts = receipts.New(c.Store, objects, o) }
}

// Playground serves the GraphiQL Playground at / (see BaseURL).
func Playground() Option { return func(c *httpapi.Config) { c.Playground = true } }

// PlaygroundHeadersFromLink serves the Playground as `make run` does: a link
// (playground.Link) may fill its Headers tab.
func PlaygroundHeadersFromLink() Option {
	return func(c *httpapi.Config) { c.Playground, c.PlaygroundHeadersFromLink = true, true }
}

// LiveLimits sets the limits of live connections.
func LiveLimits(l httpapi.LiveLimits) Option { return func(c *httpapi.Config) { c.LiveLimits = l } }

// testPoll is how often tests read the stream: often, for quick tests.
const testPoll = 20 * time.Millisecond

// startLive tails the table's stream for the hub until the test ends, and
// returns once every shard is positioned.
func startLive(t testing.TB, hub *live.Hub, s *store.Store) {
	t.Helper()
	_, err := s.EnableStream(context.Background())
	require.NoError(t, err)
	streams, err := store.NewStreamsClient(context.Background(), store.ClientConfig{Endpoint: dynamotest.Endpoint(t)})
	require.NoError(t, err)
	tailer := hub.Tail(streams, s.StreamARN)
	tailer.Poll, tailer.Refresh = testPoll, time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tailer.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-tailer.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("the stream tailer did not start")
	}
}

// URL is the address of a real HTTP server over the handler (started on
// first use), for WebSockets and server-sent events.
func (a *API) URL() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.server == nil {
		a.server = httptest.NewServer(a.handler)
		a.t.Cleanup(a.server.Close)
	}
	return a.server.URL + "/graphql"
}

// BaseURL is the address of the real HTTP server (see URL) without a path.
func (a *API) BaseURL() string { return strings.TrimSuffix(a.URL(), "/graphql") }

// Header is the Authorization header u sends.
func (u *User) Header() string { return u.header }

// New starts the API over a fresh table.
func New(t testing.TB, opts ...Option) *API {
	t.Helper()
	return newAPI(t, nil, opts)
}

// NewWithLatency is New with every DynamoDB call made at least d slower
// (dynamotest.Latency), for tests that count the waves calls come in.
func NewWithLatency(t testing.TB, d time.Duration, opts ...Option) *API {
	t.Helper()
	return newAPI(t, []func(*dynamodb.Options){dynamotest.Latency(d)}, opts)
}

// NewWithClientOptions is New with clientOpts added to the store's DynamoDB
// client, after the call Counter (such as metrics, or injected faults).
func NewWithClientOptions(t testing.TB, clientOpts []func(*dynamodb.Options), opts ...Option) *API {
	t.Helper()
	return newAPI(t, clientOpts, opts)
}

func newAPI(t testing.TB, clientOpts []func(*dynamodb.Options), opts []Option) *API {
	t.Helper()
	calls := &dynamotest.Counter{}
	db := dynamotest.Client(t, append([]func(*dynamodb.Options){calls.Option()}, clientOpts...)...)
	s := store.New(db, dynamotest.Table(t), store.Options{CursorSecret: []byte("test")})
	cfg := httpapi.Config{Store: s, BotToken: BotToken, CORSOrigins: []string{"https://app.example"}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Live != nil {
		startLive(t, cfg.Live, s)
	}
	h := httpapi.New(cfg)
	return &API{t: t, Store: s, Calls: calls, Handler: client.New(h, client.Path("/graphql")), Live: cfg.Live, handler: h}
}

// User is a client signed in as one Telegram user.
type User struct {
	api    *API
	ID     string
	Name   string
	header string
}

// User signs in a user with a personal access token.
func (a *API) User(id, name string) *User {
	a.t.Helper()
	token, err := auth.NewToken()
	require.NoError(a.t, err)
	_, err = a.Store.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: id, Name: name})
	require.NoError(a.t, err)
	return &User{api: a, ID: id, Name: name, header: "Bearer " + token}
}

// TelegramUser signs in a user with Mini App init data signed by the bot token.
func (a *API) TelegramUser(id int64, first, last, username string) *User {
	return &User{api: a, ID: strconv.FormatInt(id, 10), Name: first + " " + last, header: "tma " + InitData(id, first, last, username, time.Now())}
}

// WithHeader is a client sending this exact Authorization header ("" for none).
func (a *API) WithHeader(header string) *User { return &User{api: a, header: header} }

// InitData is init data as a Telegram client would send it, signed with BotToken.
func InitData(id int64, first, last, username string, authDate time.Time) string {
	return InitDataStartParam(id, first, last, username, authDate, "")
}

// InitDataStartParam is InitData of a Mini App opened with a start
// parameter (a t.me link's startapp=...), signed with BotToken.
func InitDataStartParam(id int64, first, last, username string, authDate time.Time, startParam string) string {
	return signedInitData(map[string]any{"id": id, "first_name": first, "last_name": last, "username": username}, authDate, startParam)
}

// signedInitData is init data for the Telegram user user, signed with BotToken.
func signedInitData(user map[string]any, authDate time.Time, startParam string) string {
	u, _ := json.Marshal(user)
	fields := url.Values{
		"auth_date": {strconv.FormatInt(authDate.Unix(), 10)},
		"query_id":  {"AAHdF6IQAAAAAN0XohDhrOrc"},
		"user":      {string(u)},
	}
	if startParam != "" {
		fields.Set("start_param", startParam)
	}
	return auth.SignInitData(fields, BotToken)
}

// Error is one GraphQL error of a response.
type Error struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Result is a raw GraphQL response.
type Result struct {
	Data   json.RawMessage
	Errors []Error
	// Status is the HTTP status: 200, or the 4xx or 5xx of a response
	// without data (429 and 503 with RetryAfter, its Retry-After header).
	Status     int
	RetryAfter string
}

// Code is the first error's extensions.code, or "" if there is none.
func (r Result) Code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// Field is the first error's extensions.field.
func (r Result) Field() string {
	if len(r.Errors) == 0 {
		return ""
	}
	f, _ := r.Errors[0].Extensions["field"].(string)
	return f
}

// Do runs an operation, POSTed as JSON; vars alternate names and values.
func (u *User) Do(query string, vars ...any) Result {
	u.api.t.Helper()
	body := map[string]any{"query": query}
	if len(vars) > 0 {
		variables := map[string]any{}
		for i := 0; i+1 < len(vars); i += 2 {
			variables[vars[i].(string)] = vars[i+1]
		}
		body["variables"] = variables
	}
	w := u.post(body)
	var resp struct {
		Data   any
		Errors []Error
	}
	require.NoError(u.api.t, json.Unmarshal(w.Body.Bytes(), &resp), "HTTP %d: %s", w.Code, w.Body)
	res := Result{Errors: resp.Errors, Status: w.Code, RetryAfter: w.Header().Get("Retry-After")}
	var err error
	res.Data, err = json.Marshal(resp.Data) // keys in order, null when absent
	require.NoError(u.api.t, err)
	return res
}

// Must runs an operation that must succeed and decodes its data into out.
func (u *User) Must(out any, query string, vars ...any) {
	u.api.t.Helper()
	res := u.Do(query, vars...)
	require.Empty(u.api.t, res.Errors, "errors from %s", query)
	if out != nil {
		require.NoError(u.api.t, json.Unmarshal(res.Data, out))
	}
}

// Fails runs an operation that must fail with the code and returns the result.
func (u *User) Fails(code, query string, vars ...any) Result {
	u.api.t.Helper()
	res := u.Do(query, vars...)
	require.NotEmpty(u.api.t, res.Errors, "expected %s from %s", code, query)
	require.Equal(u.api.t, code, res.Code(), "errors: %+v", res.Errors)
	return res
}

// CreateGroup makes a group of u's in USD and returns its id.
func (u *User) CreateGroup(title string) string {
	u.api.t.Helper()
	var out struct{ CreateGroup struct{ ID string } }
	u.Must(&out, `mutation($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id } }`, "t", title)
	u.api.mu.Lock()
	defer u.api.mu.Unlock()
	if u.api.creators == nil {
		u.api.creators = map[string]*User{}
	}
	u.api.creators[out.CreateGroup.ID] = u
	return out.CreateGroup.ID
}

// Invite creates an invite of u's to the group for one person and returns its secret.
func (u *User) Invite(groupID string) string {
	u.api.t.Helper()
	var out struct{ CreateInvite struct{ Secret string } }
	u.Must(&out, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, "g", groupID)
	return out.CreateInvite.Secret
}

// Join makes u a member of the group the way people join: with an invite,
// made by the group's creator (for a group CreateGroup made, while they are
// a member) or else by any current member.
func (u *User) Join(groupID string) {
	u.api.t.Helper()
	var secret string
	u.api.mu.Lock()
	creator := u.api.creators[groupID]
	u.api.mu.Unlock()
	if creator != nil && creator != u {
		if res := creator.Do(`mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, "g", groupID); len(res.Errors) == 0 {
			var out struct{ CreateInvite struct{ Secret string } }
			require.NoError(u.api.t, json.Unmarshal(res.Data, &out))
			secret = out.CreateInvite.Secret
		}
	}
	if secret == "" {
		secret = u.api.storeInvite(groupID, u.ID)
	}
	u.Must(nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, "i", secret)
}

// storeInvite makes a one-use invite to the group straight in the store, as
// any current member other than userID, and returns its secret.
func (a *API) storeInvite(groupID, userID string) string {
	a.t.Helper()
	ctx := context.Background()
	members, err := a.Store.ListMembers(ctx, groupID, store.PageArgs{First: store.MaxPageSize})
	require.NoError(a.t, err)
	for _, m := range members.Items {
		if m.UserID == userID || m.Placeholder {
			continue
		}
		secret, err := auth.NewInviteSecret()
		require.NoError(a.t, err)
		_, err = a.Store.CreateInvite(ctx, store.Invite{GroupID: groupID, CreatedBy: m.UserID, MaxUses: 1}, time.Hour, auth.HashInviteSecret(secret))
		require.NoError(a.t, err)
		return secret
	}
	a.t.Fatalf("group %s has no member to invite %s", groupID, userID)
	return ""
}

// Expense records an equal split of amount among users (u pays) and returns its id.
func (u *User) Expense(groupID, amount string, users ...string) string {
	u.api.t.Helper()
	splits := make([]map[string]any, len(users))
	for i, id := range users {
		splits[i] = map[string]any{"userId": id}
	}
	var out struct{ CreateExpense struct{ ID string } }
	u.Must(&out, `mutation($g: ID!, $a: Decimal!, $s: [SplitInput!]!) {
		createExpense(input: {groupId: $g, amount: $a, description: "Dinner", splitType: EQUAL, splits: $s}) { id } }`,
		"g", groupID, "a", amount, "s", splits)
	return out.CreateExpense.ID
}

// Settle records a settlement from u to another member and returns its id.
func (u *User) Settle(groupID, to, amount string) string {
	u.api.t.Helper()
	var out struct{ CreateSettlement struct{ ID string } }
	u.Must(&out, `mutation($g: ID!, $to: ID!, $a: Decimal!) {
		createSettlement(input: {groupId: $g, toUserId: $to, amount: $a}) { id } }`, "g", groupID, "to", to, "a", amount)
	return out.CreateSettlement.ID
}
