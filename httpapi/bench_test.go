package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// post runs one request through the handler in process.
func post(b *testing.B, h http.Handler, authorization, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// BenchmarkRefuseFragmentBomb is the unauthenticated 1 KB fragment bomb at
// depth 30 through the whole handler: it took over five minutes of CPU
// before the limits; now it is refused in well under a millisecond.
func BenchmarkRefuseFragmentBomb(b *testing.B) {
	s := store.New(dynamotest.Client(b), "unused", store.Options{})
	h := httpapi.New(httpapi.Config{Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	body := gql(fragmentBomb(30), nil)
	for b.Loop() {
		if rec := post(b, h, "", body); !strings.Contains(rec.Body.String(), "SELECTION_LIMIT_EXCEEDED") {
			b.Fatal(rec.Body.String())
		}
	}
}

// BenchmarkDebtsInTenAliases asks ten aliases of a twenty-member group's
// debts (every net non-zero: the exact search at its largest) in one
// request; the group's book settles up once for all ten.
func BenchmarkDebtsInTenAliases(b *testing.B) {
	s := store.New(dynamotest.Client(b), dynamotest.Table(b), store.Options{CursorSecret: []byte("bench")})
	ctx := context.Background()
	token, _ := auth.NewToken()
	if _, err := s.CreateToken(ctx, store.Token{Hash: auth.HashToken(token), UserID: "100", Name: "U100"}); err != nil {
		b.Fatal(err)
	}
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Big", Currency: usd(), Creator: store.NewMember{UserID: "100", Name: "U100"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 101; i < 120; i++ {
		id := fmt.Sprint(i)
		if _, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: id, Name: "U" + id}); err != nil {
			b.Fatal(err)
		}
		// User i pays i cents for user 100: nineteen distinct creditors, one debtor.
		e := store.Expense{GroupID: g.ID, PayerID: id, PayerName: "U" + id, Amount: money.NewAmount(int64(i), usd()),
			Description: "x", SplitType: store.SplitExact, CreatedBy: id,
			Splits: []store.Split{{UserID: "100", UserName: "U100", Amount: money.NewAmount(int64(i), usd())}}}
		if _, err := s.CreateExpense(ctx, g.Title, e, ""); err != nil {
			b.Fatal(err)
		}
	}
	h := httpapi.New(httpapi.Config{Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	body := gql(aliased(10, "group(id: $g) { debts { amount } }"), map[string]any{"g": g.ID})
	for b.Loop() {
		if rec := post(b, h, "Bearer "+token, body); !strings.Contains(rec.Body.String(), `"a9"`) || strings.Contains(rec.Body.String(), "errors") {
			b.Fatal(rec.Body.String())
		}
	}
}
