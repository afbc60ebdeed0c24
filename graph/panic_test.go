package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/internal/testkit/screens"
)

// A panic in one element of a list is that element's field's error, and
// its null goes where the spec sends it: the field itself when it is
// nullable, the nearest nullable parent when not. The rest of the response
// is untouched, whether the field runs in line (bound, on an object made
// sequential, or a batch resolver) or in a goroutine of its own.
func TestPanicInOneListElementIsThatElementsError(t *testing.T) {
	g := newGoldenServer(t)
	data := g.seed(t)
	vars := map[string]any{"g": data.big}
	base := decodeResponse(t, g.post(t, screens.Group, vars))
	require.Nil(t, base["errors"])

	for _, tc := range []struct {
		name, path string
		want       func(data map[string]any) // base's data as the panic leaves it
	}{
		{"a nullable field bound in line", "group.members.nodes[3].username", func(d map[string]any) {
			dig(d, "group", "members", "nodes", 3).(map[string]any)["username"] = nil
		}},
		{"a nullable field in a goroutine (a connection's nodes)", "group.expenses.pageInfo.endCursor", func(d map[string]any) {
			dig(d, "group", "expenses", "pageInfo").(map[string]any)["endCursor"] = nil
		}},
		{"a non-null batch field nulls up to the group", "group.balances[5].member", func(d map[string]any) {
			d["group"] = nil
		}},
		{"a non-null field of a split nulls up to the group", "group.expenses.nodes[2].splits[1].amount", func(d map[string]any) {
			d["group"] = nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The panics are injected by a field middleware, which runs for
			// each field of the generic path only: the fast path writes these
			// lists without one (and leaves to this path whatever panics in
			// it, TestFastPathFallsBack).
			srv := graph.NewHandler(&graph.Resolver{Store: g.store}, graph.HandlerConfig{GenericMarshal: true})
			srv.AddTransport(transport.POST{})
			srv.AroundFields(func(ctx context.Context, next graphql.Resolver) (any, error) {
				if graphql.GetFieldContext(ctx).Path().String() == tc.path {
					panic("boom")
				}
				return next(ctx)
			})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				id := auth.Identity{UserID: 111, Name: "Alice", Method: auth.MethodToken, Scopes: []auth.Scope{auth.ScopeRead}}
				srv.ServeHTTP(w, r.WithContext(auth.WithIdentity(r.Context(), id)))
			})
			b, err := json.Marshal(map[string]any{"query": screens.Group, "variables": vars})
			require.NoError(t, err)
			req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			require.Equal(t, http.StatusOK, w.Code, "%s", w.Body)

			got := decodeResponse(t, w.Body.Bytes())
			want := decodeResponse(t, g.post(t, screens.Group, vars))["data"].(map[string]any)
			tc.want(want)
			require.Equal(t, want, got["data"])
			errs, _ := got["errors"].([]any)
			require.Len(t, errs, 1, "one error, the panicking field's: %v", got["errors"])
			e := errs[0].(map[string]any)
			require.Equal(t, "INTERNAL_SERVER_ERROR", e["extensions"].(map[string]any)["code"])
			require.NotContains(t, e["message"], "boom")
			require.Equal(t, tc.path, pathString(e["path"].([]any)))
		})
	}
}

// decodeResponse decodes a GraphQL response body.
func decodeResponse(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var out map[string]any
	require.NoError(t, json.Unmarshal(body, &out), "%s", body)
	return out
}

// dig walks a decoded JSON value by keys and indexes.
func dig(v any, at ...any) any {
	for _, k := range at {
		switch k := k.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// pathString writes an error's path as gqlgen's ast.Path does.
func pathString(path []any) string {
	var b bytes.Buffer
	for i, p := range path {
		switch p := p.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case float64:
			b.WriteString("[" + strconv.Itoa(int(p)) + "]")
		}
	}
	return b.String()
}
