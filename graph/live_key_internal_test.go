package graph

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/graph/generated"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
)

// operation parses and validates query against the schema, as the
// executor does.
func operation(t *testing.T, query string, vars map[string]any) *graphql.OperationContext {
	t.Helper()
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	doc, errs := gqlparser.LoadQuery(schema, query)
	require.Empty(t, errs)
	return &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: vars, RawQuery: query}
}

func TestPayloadKey(t *testing.T) {
	const q = `subscription($g: ID!) { groupEvents(groupId: $g) { id sequence type } }`
	g := map[string]any{"g": "group-1"}
	key := func(query string, vars map[string]any, viewer string) string {
		return PayloadKey(operation(t, query, vars), viewer)
	}
	base := key(q, g, "ann")
	require.Equal(t, base, key(q, g, "ben"), "the viewer does not matter when nothing selected depends on it")
	require.Equal(t, base, key("subscription ($g: ID!) {\n  groupEvents(groupId: $g) {\n    id # the id\n    sequence\n    type\n  }\n}", g, "ann"),
		"whitespace and comments do not matter")
	require.NotEqual(t, base, key(q, map[string]any{"g": "group-2"}, "ann"), "variables do")
	require.NotEqual(t, base, key(`subscription($g: ID!) { groupEvents(groupId: $g) { id type } }`, g, "ann"), "so does the selection")

	for name, query := range map[string]string{
		"a field":            `subscription { myEvents { actor { notificationSettings { muted } } } }`,
		"an inline fragment": `subscription { myEvents { subject { ... on Member { notificationSettings { digest } } } } }`,
		"a fragment":         `subscription { myEvents { actor { ...settings } } } fragment settings on Member { notificationSettings { muted } }`,
	} {
		require.NotEqual(t, key(query, nil, "ann"), key(query, nil, "ben"), "%s reaching a field that depends on the viewer", name)
	}
}
