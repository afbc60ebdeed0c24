// Package apitest drives the whole API the way a client does: the real HTTP
// handler (auth, loaders, GraphQL) over a fresh DynamoDB Local table, with
// users signed in by access token or by Telegram init data.
package apitest

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/dynamotest"
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
}

// Option changes the test server's configuration.
type Option func(*httpapi.Config)

// LoaderWait sets the dataloaders' batch window.
func LoaderWait(d time.Duration) Option { return func(c *httpapi.Config) { c.LoaderWait = d } }

// Clock is a server clock a test moves by hand; it starts at the real time.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the real time moved by everything Add added.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// WithClock gives the server c as its clock (init data, access token expiry).
func WithClock(c *Clock) Option { return func(cfg *httpapi.Config) { cfg.Now = c.Now } }

// New starts the API over a fresh table.
func New(t testing.TB, opts ...Option) *API {
	t.Helper()
	calls := &dynamotest.Counter{}
	s := store.New(dynamotest.Client(t, calls.Option()), dynamotest.Table(t), store.Options{CursorSecret: []byte("test")})
	cfg := httpapi.Config{Store: s, BotToken: BotToken, CORSOrigins: []string{"https://app.example"}}
	for _, o := range opts {
		o(&cfg)
	}
	return &API{t: t, Store: s, Calls: calls, Handler: client.New(httpapi.New(cfg), client.Path("/graphql"))}
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
	u, _ := json.Marshal(map[string]any{"id": id, "first_name": first, "last_name": last, "username": username})
	return auth.SignInitData(url.Values{
		"auth_date": {strconv.FormatInt(authDate.Unix(), 10)},
		"query_id":  {"AAHdF6IQAAAAAN0XohDhrOrc"},
		"user":      {string(u)},
	}, BotToken)
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

// Do runs an operation; vars alternate names and values.
func (u *User) Do(query string, vars ...any) Result {
	u.api.t.Helper()
	opts := []client.Option{}
	if u.header != "" {
		opts = append(opts, client.AddHeader("Authorization", u.header))
	}
	for i := 0; i+1 < len(vars); i += 2 {
		opts = append(opts, client.Var(vars[i].(string), vars[i+1]))
	}
	resp, err := u.api.Handler.RawPost(query, opts...)
	require.NoError(u.api.t, err)
	var res Result
	res.Data, _ = json.Marshal(resp.Data)
	if resp.Errors != nil {
		require.NoError(u.api.t, json.Unmarshal(resp.Errors, &res.Errors))
	}
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
	return out.CreateGroup.ID
}

// Join makes u a member of the group.
func (u *User) Join(groupID string) {
	u.api.t.Helper()
	u.Must(nil, `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, "g", groupID)
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
