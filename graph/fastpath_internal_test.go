package graph

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/graph/fastjson"
	"github.com/fracti/api/graph/generated"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// renderField runs the fast path's writer on res for the first field under
// group in query, as the middleware would; nil means the generic path.
func renderField(t *testing.T, query string, res any) *string {
	t.Helper()
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	doc, errs := gqlparser.LoadQuery(schema, query)
	require.Empty(t, errs)
	op := doc.Operations[0]
	ctx := graphql.WithOperationContext(context.Background(), &graphql.OperationContext{Doc: doc, Operation: op, Variables: map[string]any{"t": true}})
	list := op.SelectionSet[0].(*ast.Field).SelectionSet[0].(*ast.Field)
	m := newFastPath(schema).render(ctx, list.SelectionSet, res, new(atomic.Int64))
	if m == nil {
		return nil
	}
	var b []byte
	w := writerFunc(func(p []byte) { b = append(b, p...) })
	m.MarshalGQL(w)
	s := string(b)
	return &s
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// What the fast path cannot write it leaves to the generic path, whole:
// an unsupported field, a null where the schema has none, a value it does
// not know, a panic (here: a member to read with no loaders).
func TestFastPathFallsBack(t *testing.T) {
	joined := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := store.Member{GroupID: "g", UserID: "1", Name: `A "b"`, JoinedAt: joined}
	members := &model.MemberConnection{Nodes: []store.Member{m}, Edges: []model.MemberEdge{{Node: &m}}, PageInfo: &model.PageInfo{HasNextPage: true}}
	usd := money.MustCurrency("USD")
	expense := store.Expense{ID: "e", GroupID: "g", PayerID: "1", Amount: money.NewAmount(1250, usd), SplitType: "halves"}
	expenses := &model.ExpenseConnection{Nodes: []store.Expense{expense}, PageInfo: &model.PageInfo{}}

	got := renderField(t, `query($t: Boolean!) { group(id: "g") { members(first: 1) { nodes { ... on Node @include(if: $t) { id } n: name joinedAt username } pageInfo { hasNextPage __typename } } } }`, members)
	require.NotNil(t, got)
	require.Equal(t, `{"nodes":[{"id":"g:1","n":"A \"b\"","joinedAt":"2026-01-02T03:04:05.000Z","username":null}],"pageInfo":{"hasNextPage":true,"__typename":"PageInfo"}}`, *got)

	for name, c := range map[string]struct {
		query string
		res   any
	}{
		"unsupported field": {`{ group(id: "g") { members { nodes { id group { id } } } } }`, members},
		"null node":         {`{ group(id: "g") { members { edges { node { id } } } } }`, &model.MemberConnection{Edges: []model.MemberEdge{{}}, Nodes: []store.Member{{}}, PageInfo: &model.PageInfo{}}},
		"null page info":    {`{ group(id: "g") { members { nodes { id } } } }`, &model.MemberConnection{}},
		"unknown enum":      {`{ group(id: "g") { expenses { nodes { amount splitType } } } }`, expenses},
		"panic":             {`{ group(id: "g") { expenses { nodes { amount payer { name } } } } }`, &model.ExpenseConnection{Nodes: []store.Expense{{ID: "e", GroupID: "g", PayerID: "1", SplitType: store.SplitEqual}}, PageInfo: &model.PageInfo{}}},
		"another type":      {`{ group(id: "g") { balances { net } } }`, "not a list"},
	} {
		t.Run(name, func(t *testing.T) { require.Nil(t, renderField(t, c.query, c.res)) })
	}
}

// TestFragmentsGrowTheOutputOnce: the first fragment of a root field makes
// room in the executor's buffer for all of them, so writing the rest
// allocates nothing; outside a root field a fragment just writes itself.
func TestFragmentsGrowTheOutputOnce(t *testing.T) {
	ctx := context.WithValue(context.Background(), fragmentTotalKey{}, &fragmentTotal{})
	a := newFragment(ctx, fastjson.Buffer{B: bytes.Repeat([]byte("a"), 3000)})
	b := newFragment(ctx, fastjson.Buffer{B: bytes.Repeat([]byte("b"), 5000)})
	var out bytes.Buffer
	out.WriteString(`{"data":`)
	a.MarshalGQL(&out)
	grown := out.Cap()
	require.GreaterOrEqual(t, grown, 8000+len(`{"data":`))
	b.MarshalGQL(&out)
	require.Equal(t, grown, out.Cap(), "no second growth")
	require.Equal(t, `{"data":`+strings.Repeat("a", 3000)+strings.Repeat("b", 5000), out.String())

	var plain bytes.Buffer
	newFragment(context.Background(), fastjson.Buffer{B: []byte(`[1]`)}).MarshalGQL(&plain)
	require.Equal(t, `[1]`, plain.String())
}
