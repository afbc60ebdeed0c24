package limits_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fracti/api/graph/limits"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"
)

// fragmentBomb is a 1 KB document whose fragments spread the previous one
// twice, depth times: expanded, it selects 2^depth fields.
func fragmentBomb(depth int) string {
	var b strings.Builder
	b.WriteString("query { ...F" + fmt.Sprint(depth) + " }\nfragment F0 on Query { __typename }\n")
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	return b.String()
}

// nested is a query whose fields nest n levels deep (CheckDocument does not
// validate against a schema, so the field names need not exist).
func nested(n int) string {
	q := "id"
	for range n - 1 {
		q = "f { " + q + " }"
	}
	return "{ " + q + " }"
}

func code(t *testing.T, cfg limits.Config, query string) string {
	t.Helper()
	err := cfg.CheckDocument(context.Background(), query)
	if err == nil {
		return ""
	}
	require.NotEmpty(t, err.Message)
	require.Positive(t, err.Extensions["limit"], "the refusal names its limit")
	return err.Extensions["code"].(string)
}

func TestCheckDocumentRefusesEachLimit(t *testing.T) {
	d := limits.Defaults()
	many := func(n int, s string) string { return strings.Repeat(s, n) }
	for _, tc := range []struct {
		name, query, code string
	}{
		{"size", "{ me { id } }" + many(d.MaxDocumentBytes, " "), limits.CodeDocumentTooLarge},
		{"tokens", "{" + many(d.MaxTokens, " a") + " }", limits.CodeTokenLimit},
		{"tokens, counted before parsing", "{" + many(d.MaxTokens, " ((") + " }", limits.CodeTokenLimit},
		{"selections", "{" + many(d.MaxSelections+1, " __typename") + " }", limits.CodeSelectionLimit},
		{"fragment bomb", fragmentBomb(30), limits.CodeSelectionLimit},
		{"depth", nested(d.MaxDepth + 1), limits.CodeDepthLimit},
		{"depth through fragments", "{ me { ...A } } fragment A on User { groups { nodes { ...B } } } fragment B on Group { " +
			"members { nodes { group { members { nodes { group { members { nodes { id } } } } } } } } }", limits.CodeDepthLimit},
		{"aliases", "{" + fmt.Sprint(aliases(d.MaxAliases+1)) + " }", limits.CodeAliasLimit},
		{"aliases through fragments", "{ ...A ...A ...A ...A ...A } fragment A on Query { a: me { id } b: me { id } c: me { id } d: me { id } e: me { id } }", limits.CodeAliasLimit},
		{"root fields", "{" + many(d.MaxRootFields+1, " me { id }") + " }", limits.CodeRootFieldLimit},
		{"root fields through fragments", "{ ...A ...A ...A ...A } fragment A on Query { me { id } __typename group(id: \"x\") { id } }", limits.CodeRootFieldLimit},
		{"directives", "{ me {" + many(d.MaxDirectives+1, " id @include(if: true)") + " } }", limits.CodeDirectiveLimit},
		{"directives on one field", "{ me { id" + many(d.MaxDirectives+1, " @skip(if: false)") + " } }", limits.CodeDirectiveLimit},
		{"fragment spreads", "{ me { ...U } } fragment U on User {" + many(d.MaxFragmentSpreads+1, " ...V") + " } fragment V on User { id }", limits.CodeFragmentSpreadLimit},
		{"an unused fragment is checked too", "{ me { id } } " + strings.TrimPrefix(fragmentBomb(30), "query { ...F30 }"), limits.CodeSelectionLimit},
		{"a second operation is checked too", "query A { me { id } } query B " + strings.TrimPrefix(fragmentBomb(30), "query "), limits.CodeSelectionLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.code, code(t, d, tc.query))
		})
	}
}

func aliases(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " a%d: me { id }", i)
	}
	return b.String()
}

func TestCheckDocumentPassesRealQueries(t *testing.T) {
	introspection, err := os.ReadFile("testdata/introspection.graphql")
	require.NoError(t, err)
	for name, query := range map[string]string{
		"GraphiQL's introspection": string(introspection),
		"the README's demo query": `{ me { name groups { nodes { id title expenses(first: 5) { nodes { description amount currency payer { name } } }
			balances { member { name } net currency } debts { from { name } to { name } amount currency } } } } }`,
		"a page with every beneficiary": `query($g: ID!) { group(id: $g) { title memberCount
			expenses(first: 20) { edges { cursor node { id description amount currency payer { name }
				splits { member { name } amount } } } pageInfo { hasNextPage endCursor } } } }`,
		"depth at the limit":                       nested(limits.Defaults().MaxDepth),
		"a syntax error is the parser's to report": "{ me { id ",
		"fragments reused many times":              "{ me { ...U ...U ...U ...U ...U ...U ...U ...U } } fragment U on User { id name }",
	} {
		t.Run(name, func(t *testing.T) {
			require.Empty(t, code(t, limits.Defaults(), query))
		})
	}
}

func TestCheckDocumentConfig(t *testing.T) {
	// Zero fields take the defaults; set ones replace them.
	require.Empty(t, code(t, limits.Config{}, nested(10)))
	require.Equal(t, limits.CodeDepthLimit, code(t, limits.Config{MaxDepth: 3}, nested(4)))
	require.Equal(t, limits.CodeAliasLimit, code(t, limits.Config{MaxAliases: 1}, "{ a: me { id } b: me { id } }"))
}

func TestCheckDocumentStopsAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := limits.Defaults().CheckDocument(ctx, "{ me { id } }")
	require.NotNil(t, err)
	require.Equal(t, limits.CodeTimeout, err.Extensions["code"])
}

func TestOperationType(t *testing.T) {
	cfg := limits.Defaults()
	two := "query Q { me { id } } subscription S { myEvents { id } }"
	for _, tc := range []struct {
		query, name string
		want        ast.Operation
	}{
		{"subscription { myEvents { id } }", "", ast.Subscription},
		{"{ subscription }", "", ast.Query},
		{"mutation($subscription: ID) { x(id: $subscription) }", "", ast.Mutation},
		{two, "S", ast.Subscription},
		{two, "Q", ast.Query},
		{two, "", ""},                                                  // which one is not said
		{two, "Other", ""},                                             // no such operation
		{"subscription {", "", ""},                                     // does not parse
		{"subscription { " + strings.Repeat("a ", 3000) + "}", "", ""}, // past MaxTokens: not parsed
	} {
		require.Equal(t, tc.want, cfg.OperationType(tc.query, tc.name), "%.60s (%s)", tc.query, tc.name)
	}
}

// BenchmarkCheckFragmentBomb shows that the fragment bomb at depth 30 (2^30
// fields expanded) is refused in microseconds: each fragment is counted once.
func BenchmarkCheckFragmentBomb(b *testing.B) {
	doc := fragmentBomb(30)
	cfg := limits.Defaults()
	for b.Loop() {
		if err := cfg.CheckDocument(context.Background(), doc); err == nil {
			b.Fatal("the bomb passed")
		}
	}
}

// BenchmarkCheckTypenameFlood shows the 10,000 __typename document (110 KB)
// refused by its size, and one just under the token limit by its selections,
// before validation's quadratic work.
func BenchmarkCheckTypenameFlood(b *testing.B) {
	cfg := limits.Defaults()
	cfg.MaxDocumentBytes = 1 << 20
	doc := "{" + strings.Repeat(" __typename", 1_500) + " }"
	for b.Loop() {
		if err := cfg.CheckDocument(context.Background(), doc); err == nil {
			b.Fatal("the flood passed")
		}
	}
}
