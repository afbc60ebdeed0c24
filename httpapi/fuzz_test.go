package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// FuzzHandler sends the whole handler random methods, content types, Accept
// headers, URL parameters and bodies, signed in or not, against a real
// group on DynamoDB Local. Whatever arrives, the server answers JSON, never
// with a 5xx or INTERNAL_SERVER_ERROR, never without a code on an error,
// never by panicking, and the group's kept balances always equal a full
// recomputation (no partial write). `make fuzz` runs it for longer.
func FuzzHandler(f *testing.F) {
	s := store.New(dynamotest.Client(f), dynamotest.Table(f), store.Options{CursorSecret: []byte("fuzz")})
	ctx := context.Background()
	headers := map[string]string{}
	for _, u := range []struct{ id, name string }{{"111", "Alice"}, {"222", "Bob"}} {
		token, err := auth.NewToken()
		require.NoError(f, err)
		_, err = s.CreateToken(ctx, store.Token{Hash: auth.HashToken(token), UserID: u.id, Name: u.name})
		require.NoError(f, err)
		headers[u.id] = "Bearer " + token
	}
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Fuzz", Currency: usd(), Creator: store.NewMember{UserID: "111", Name: "Alice"}})
	require.NoError(f, err)
	_, _, err = s.JoinGroup(ctx, g.ID, store.NewMember{UserID: "222", Name: "Bob"})
	require.NoError(f, err)
	h := httpapi.New(httpapi.Config{Store: s, BotToken: apitest.BotToken, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})

	group := g.ID
	for _, seed := range []struct {
		method, contentType, accept, rawQuery, body string
		user                                        uint8
	}{
		{"POST", "application/json", "", "", `{"query":"{ me { id name groups { nodes { id balances { net } debts { amount } } } } }"}`, 1},
		{"POST", "application/json", "", "", `{"query":"mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }","variables":{"in":{"groupId":"` + group + `","amount":"10.00","description":"Pizza","splitType":"EQUAL","splits":[{"userId":"111"},{"userId":"222"}]}}}`, 1},
		{"POST", "application/json", "", "", `{"query":"mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }","variables":{"in":{"groupId":"` + group + `","amount":"7.5","currency":"TON","description":"Taxi","splitType":"SHARES","payers":[{"userId":"111","amount":"5"},{"userId":"222","amount":"2.5"}],"splits":[{"userId":"111","shares":"2"},{"userId":"222","shares":"1.5"}]}}}`, 2},
		{"POST", "application/json", "", "", `{"query":"mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }","variables":{"in":{"groupId":"` + group + `","amount":"9.99","description":"Wine","splitType":"PERCENTAGE","splits":[{"userId":"111","percentage":"33.33"},{"userId":"222","percentage":"66.67"}],"idempotencyKey":"k1"}}}`, 1},
		{"POST", "application/json", "", "", `{"query":"mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }","variables":{"in":{"groupId":"` + group + `","amount":"3.00","description":"Tea","splitType":"EXACT","splits":[{"userId":"111","amount":"1.00"},{"userId":"222","amount":"2.00"}]}}}`, 2},
		{"POST", "application/json", "", "", `{"query":"mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id status } }","variables":{"in":{"groupId":"` + group + `","fromUserId":"222","amount":"4.00","status":"COMPLETED"}}}`, 1},
		{"POST", "application/json", "", "", `{"query":"mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id status } }","variables":{"in":{"groupId":"` + group + `","toUserId":"111","amount":"4.00","status":"SENT","txHash":"abc"}}}`, 2},
		{"POST", "application/json", "", "", `{"query":"{ group(id: \"` + group + `\") { expenses { nodes { id } } settlements { nodes { id status } } } }"}`, 2},
		{"POST", "application/json", "", "", `{"query":"mutation($id: ID!) { deleteExpense(id: $id) }","variables":{"id":"00000000-0000-0000-0000-000000000000"}}`, 1},
		{"POST", "application/json", "", "", `{"query":"mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }","variables":{"id":"x"}}`, 1},
		{"POST", "application/json", "application/graphql-response+json", "", `{"query":"{ me { id } "}`, 1},
		{"POST", "application/json", "", "", `{"query":"query($a: Decimal!) { me { id } }","variables":{"a":1e400}}`, 1},
		{"POST", "application/json", "", "", `[{"query":"{ me { id } }"},{"query":"{ me { id } }"}]`, 0},
		{"POST", "application/json; charset=utf-8", "", "", `{"query":"{ __schema { types { name fields { name type { ofType { name } } } } } }"}`, 0},
		{"POST", "text/plain", "", "", `{"query":"{ me { id } }"}`, 1},
		{"POST", "application/json", "", "", `{"query":"{ me { id } }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"00"}}}`, 1},
		{"GET", "", "", "query=%7B+me+%7B+id+%7D+%7D", "", 1},
		{"GET", "", "", "query=mutation+%7B+leaveGroup%28groupId%3A%22x%22%29+%7D", "", 1},
		{"GET", "", "", "extensions=%7B%22persistedQuery%22%3A%7B%22version%22%3A1%7D%7D", "", 0},
		{"DELETE", "", "", "", "", 1},
		{"POST", "application/json", "", "", `{"query":"query { ...F2 } fragment F0 on Query { __typename } fragment F1 on Query { ...F0 ...F0 } fragment F2 on Query { ...F1 ...F1 }"}`, 0},
		{"POST", "application/json", "", "", "{\"query\":\"mutation { createGroup(input: {title: \\\"\u202Eevil\\\", currency: \\\"usd\\\"}) { id } }\"}", 2},
	} {
		f.Add(seed.method, seed.contentType, seed.accept, seed.rawQuery, seed.body, seed.user)
	}

	f.Fuzz(func(t *testing.T, method, contentType, accept, rawQuery, body string, user uint8) {
		req, err := http.NewRequestWithContext(ctx, method, "/graphql", strings.NewReader(body))
		if err != nil {
			t.Skip("not an HTTP request")
		}
		req.URL.RawQuery = rawQuery
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", accept)
		switch user % 4 {
		case 1:
			req.Header.Set("Authorization", headers["111"])
		case 2:
			req.Header.Set("Authorization", headers["222"])
		case 3:
			req.Header.Set("Authorization", "Bearer frt_not-a-token")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		require.Less(t, rec.Code, 500, "status %d: %s", rec.Code, rec.Body)
		var res struct {
			Errors []struct {
				Message    string
				Extensions map[string]any
			}
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &res), "the answer is JSON: %s", rec.Body)
		for _, e := range res.Errors {
			code, _ := e.Extensions["code"].(string)
			require.NotEmpty(t, code, "every error has a code: %s", rec.Body)
			require.NotEqual(t, "INTERNAL_SERVER_ERROR", code, rec.Body.String())
		}
		requireNoDrift(t, s, group)
	})
}

// requireNoDrift checks the group's kept balances against a recomputation
// from its items: a partial write would show as a difference.
func requireNoDrift(t *testing.T, s *store.Store, groupID string) {
	ctx := context.Background()
	re, err := s.RecomputeBalances(ctx, groupID)
	require.NoError(t, err)
	require.Empty(t, re.Problems)
	kept, err := s.GetBalances(ctx, []string{groupID})
	require.NoError(t, err)
	for _, b := range kept[0].Books {
		r := re.Books[b.Currency]
		if r == nil {
			r = ledger.NewBook(b.Currency)
		}
		require.Empty(t, b.Diff(r), b.Currency.Code())
	}
	for c, r := range re.Books {
		require.Empty(t, kept[0].Book(c).Diff(r), c.Code())
	}
}
