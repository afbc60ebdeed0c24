package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/screens"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The screens' responses, byte for byte: how the executor is generated and
// run (gqlgen's version, bound fields, fields in line, batch resolvers, a
// fast marshaler) may change what a response costs, never one byte of it.
// The data is seeded through the store with a fixed clock and numbered ids,
// so nothing in a response is random and nothing is normalised.

// update rewrites the golden files from what the server answers now:
// `PACKAGES=./graph scripts/test.sh -run TestScreensGolden -update`.
var update = flag.Bool("update", false, "rewrite the golden responses in testdata/golden")

// goldenScreens are the screens' operations and their variables.
type goldenScreen struct {
	name, query string
	vars        map[string]any
}

func TestScreensGolden(t *testing.T) {
	g := newGoldenServer(t)
	data := g.seed(t)
	list := []goldenScreen{
		{"group", screens.Group, map[string]any{"g": data.big}},
		{"group_twice", twiceAliasedQuery(screens.Group), map[string]any{"g": data.big}},
		{"home", screens.Home, nil},
		{"owes", screens.Owes, nil},
		// Expenses of two groups, an id that is no expense and a group's id:
		// null where nothing is found, in the order asked.
		{"byid", screens.ByID, map[string]any{"ids": append(append([]string{}, data.expenses...),
			"00000000-0000-4000-8000-999999999999", data.big)}},
		{"group_stranger", screens.Group, map[string]any{"g": data.other}},
		// A malformed id answers as an id that does not exist.
		{"group_bad_id", screens.Group, map[string]any{"g": "not-an-id"}},
	}
	for _, sc := range list {
		t.Run(sc.name, func(t *testing.T) {
			got := g.post(t, sc.query, sc.vars)
			path := filepath.Join("testdata", "golden", sc.name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden response: run with -update on a tree whose responses are right")
			if !bytes.Equal(want, got) {
				// JSONEq first: its diff shows which value moved.
				require.JSONEq(t, string(want), string(got))
				require.Equal(t, string(want), string(got), "the same JSON, not the same bytes")
			}
			// Twice in a row the same: nothing depends on timing.
			require.Equal(t, string(got), string(g.post(t, sc.query, sc.vars)))
		})
	}
}

// When the members of a list's parents cannot be read, each parent's field
// is null with its own error, as before batch resolvers: the data byte for
// byte, and the same errors (in a sorted order: fields resolved at once
// report in any order).
func TestScreenErrorsGolden(t *testing.T) {
	g := newGoldenServer(t)
	data := g.seed(t)
	query := `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Expense { id payer { name } payers { member { name } } splits { member { id name } } } } }`
	vars := map[string]any{"ids": []any{data.expenses[4], data.expenses[5]}}
	g.post(t, query, vars) // the token's lookup is cached from here on
	n, _ := g.calls.Load("BatchGetItem")
	base := n.(int)
	// The expenses by id and whether any is a group, the viewer's
	// membership, then the members: that third BatchGetItem fails.
	fail := func(op string, n int) error {
		if op == "BatchGetItem" && n >= base+3 {
			return &smithy.GenericAPIError{Code: "ValidationException", Message: "injected"}
		}
		return nil
	}
	g.fail.Store(&fail)
	got := g.post(t, query, vars)
	g.fail.Store(nil)

	var res struct {
		Data   json.RawMessage   `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(got, &res))
	require.NotEmpty(t, res.Errors)
	errs := make([]string, len(res.Errors))
	for i, e := range res.Errors {
		// The request's id is random: the one thing normalised.
		errs[i] = requestID.ReplaceAllString(string(e), `"requestId":"…"`)
	}
	sort.Strings(errs)
	normal := append(append([]byte(`{"data":`), res.Data...), []byte("\n,\"errors\":[\n"+strings.Join(errs, ",\n")+"\n]}\n")...)
	path := filepath.Join("testdata", "golden", "byid_members_unreadable.json")
	if *update {
		require.NoError(t, os.WriteFile(path, normal, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(normal))
}

// requestID is an error's request id, which is random.
var requestID = regexp.MustCompile(`"requestId":"[0-9a-f]+"`)

// twiceAliasedQuery asks a one-root-field query's field twice, as a: and
// b: (the bench's execution measurement asks the group screen so).
func twiceAliasedQuery(q string) string {
	open := bytes.IndexByte([]byte(q), '{')
	closeAt := bytes.LastIndexByte([]byte(q), '}')
	body := string(bytes.TrimSpace([]byte(q[open+1 : closeAt])))
	return q[:open+1] + " a: " + body + " b: " + body + " }"
}

// goldenServer is the API over a store whose ids and clock are fixed.
type goldenServer struct {
	store   *store.Store
	clock   *testclock.Clock
	handler http.Handler
	header  string
	// fail, when set, decides which DynamoDB calls fail (by operation and
	// call number, as dynamotest.Fault counts them).
	fail atomic.Pointer[func(op string, n int) error]
	// calls is how many calls of each operation the client has made.
	calls sync.Map
}

// newGoldenServer starts the API with numbered ids and a clock standing
// still until the seeding moves it.
func newGoldenServer(t *testing.T) *goldenServer {
	var n atomic.Int64
	newID := func() string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n.Add(1)) }
	clock := testclock.At(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	g := &goldenServer{clock: clock}
	fault := dynamotest.NewFault(func(op string, n int) error {
		g.calls.Store(op, n)
		if f := g.fail.Load(); f != nil {
			return (*f)(op, n)
		}
		return nil
	})
	g.store = store.New(dynamotest.Client(t, fault.Option()), dynamotest.Table(t), store.Options{CursorSecret: []byte("golden"), Now: clock.Now, NewID: newID})
	g.handler = httpapi.New(httpapi.Config{Store: g.store, Now: clock.Now})
	return g
}

// post sends one operation as the viewer and returns the response body as
// it came.
func (g *goldenServer) post(t *testing.T, query string, vars map[string]any) []byte {
	t.Helper()
	body := map[string]any{"query": query}
	if vars != nil {
		body["variables"] = vars
	}
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", g.header)
	w := httptest.NewRecorder()
	g.handler.ServeHTTP(w, req)
	require.Equal(t, http.StatusOK, w.Code, "%s", w.Body)
	return w.Body.Bytes()
}

// goldenData is what the screens are asked about.
type goldenData struct {
	big, other string
	expenses   []string // 20 of the big group's, then 5 of a small one's
}

// seed writes, one write at a time (ids are numbered in order), a group of
// 50 members with a placeholder, 30 expenses (some with two payers, some in
// EUR) and settlements, 8 small groups the viewer shares with friends,
// and a group the viewer is not in.
func (g *goldenServer) seed(t *testing.T) goldenData {
	ctx := context.Background()
	usd, eur := money.MustCurrency("USD"), money.MustCurrency("EUR")
	tick := func() { g.clock.Add(time.Minute) }
	const viewer = "111"
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = g.store.CreateToken(ctx, store.Token{Hash: auth.HashToken(token), UserID: viewer, Name: "Alice"})
	require.NoError(t, err)
	g.header = "Bearer " + token

	name := func(id string) string { return "Member " + id }
	big, _, err := g.store.CreateGroup(ctx, store.NewGroup{Title: "Big trip", Currency: usd,
		Creator: store.NewMember{UserID: viewer, Name: "Alice", Username: "alice"}})
	require.NoError(t, err)
	tick()
	ids := []string{viewer}
	for i := range 49 {
		id := fmt.Sprint(500 + i)
		nm := store.NewMember{UserID: id, Name: name(id)}
		if i%3 == 0 {
			nm.Username = fmt.Sprint("member", id)
		}
		_, _, err := g.store.JoinGroup(ctx, big.ID, nm)
		require.NoError(t, err)
		ids = append(ids, id)
		tick()
	}
	names := map[string]string{viewer: "Alice"}
	for _, id := range ids[1:] {
		names[id] = name(id)
	}
	_, err = g.store.AddPlaceholder(ctx, big.ID, "Uncle Bob", viewer)
	require.NoError(t, err)
	tick()
	var out goldenData
	out.big = big.ID
	for i := range 30 {
		cur := usd
		if i%9 == 4 {
			cur = eur
		}
		users := []string{ids[i%50], ids[(i+7)%50], ids[(i+13)%50], ids[(i+29)%50]}
		e := goldenExpense(users, names, money.NewAmount(int64(1000+i*37), cur), fmt.Sprint("expense ", i))
		e.GroupID = big.ID
		if i%10 == 5 { // two payers, 60/40
			first := money.NewAmount(e.Amount.Minor().Int64()*6/10, cur)
			e.Payers = []store.Payment{
				{UserID: users[0], UserName: names[users[0]], Amount: first},
				{UserID: users[1], UserName: names[users[1]], Amount: e.Amount.Sub(first)},
			}
		}
		created, err := g.store.CreateExpense(ctx, big.Title, e, "")
		require.NoError(t, err)
		if len(out.expenses) < 20 {
			out.expenses = append(out.expenses, created.ID)
		}
		tick()
		if i%10 == 9 {
			from, to := ids[i%50], ids[(i+3)%50]
			_, err := g.store.CreateSettlement(ctx, store.Settlement{GroupID: big.ID, FromUserID: from, FromUserName: names[from],
				ToUserID: to, ToUserName: names[to], Amount: money.NewAmount(int64(100+i), usd), Status: store.SettlementCompleted}, "")
			require.NoError(t, err)
			tick()
		}
	}
	for i := range 8 {
		cur := usd
		if i%4 == 3 {
			cur = eur
		}
		small, _, err := g.store.CreateGroup(ctx, store.NewGroup{Title: fmt.Sprint("Flat ", i), Currency: cur,
			Creator: store.NewMember{UserID: viewer, Name: "Alice", Username: "alice"}})
		require.NoError(t, err)
		tick()
		friends := []string{fmt.Sprint(700 + i), fmt.Sprint(800 + i)}
		for _, f := range friends {
			names[f] = "Friend " + f
			_, _, err := g.store.JoinGroup(ctx, small.ID, store.NewMember{UserID: f, Name: names[f]})
			require.NoError(t, err)
			tick()
		}
		for j, payer := range friends {
			e := goldenExpense([]string{payer, viewer}, names, money.NewAmount(int64(900+i*10+j), cur), fmt.Sprint("dinner ", j))
			e.GroupID = small.ID
			created, err := g.store.CreateExpense(ctx, small.Title, e, "")
			require.NoError(t, err)
			if i == 0 {
				out.expenses = append(out.expenses, created.ID)
			}
			tick()
		}
		if i%2 == 1 {
			_, err := g.store.CreateSettlement(ctx, store.Settlement{GroupID: small.ID, FromUserID: viewer, FromUserName: "Alice",
				ToUserID: friends[0], ToUserName: names[friends[0]], Amount: money.NewAmount(int64(300+i), cur), Status: store.SettlementCompleted}, "")
			require.NoError(t, err)
			tick()
		}
	}
	other, _, err := g.store.CreateGroup(ctx, store.NewGroup{Title: "Not Alice's", Currency: usd,
		Creator: store.NewMember{UserID: "999", Name: "Mallory"}})
	require.NoError(t, err)
	out.other = other.ID
	tick()
	return out
}

// goldenExpense is an expense users[0] paid, split equally among users.
func goldenExpense(users []string, names map[string]string, a money.Amount, desc string) store.Expense {
	parts, err := money.SplitEqual(a, len(users))
	if err != nil {
		panic(err)
	}
	splits := make([]store.Split, len(users))
	for j, u := range users {
		splits[j] = store.Split{UserID: u, UserName: names[u], Amount: parts[j]}
	}
	return store.Expense{PayerID: users[0], PayerName: names[users[0]], Amount: a, Description: desc,
		SplitType: store.SplitEqual, CreatedBy: users[0], Splits: splits}
}
