package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/graph"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func hashOf(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(sum[:])
}

// persisted is a request's extensions naming a document by its hash.
func persisted(hash string) string {
	return `{"persistedQuery": {"version": 1, "sha256Hash": "` + hash + `"}}`
}

func TestTrustedDocuments(t *testing.T) {
	const me = `query Me { me { id name } }`
	const rename = `mutation Rename($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "Ski trip"}) { title } }`
	manifest, _ := json.Marshal(map[string]any{
		"format": "apollo-persisted-query-manifest", "version": 1,
		"operations": []map[string]any{
			{"id": hashOf(me), "name": "Me", "type": "query", "body": me},
			{"id": hashOf(rename), "name": "Rename", "type": "mutation", "body": rename},
		},
	})
	docs, err := graph.ParseTrustedDocuments(manifest)
	require.NoError(t, err)
	a := newAttacked(t, func(c *httpapi.Config) { c.TrustedDocuments = docs })
	body := func(fields map[string]any) string {
		b, _ := json.Marshal(fields)
		return string(b)
	}

	t.Run("a trusted document runs by its hash, with GET or POST", func(t *testing.T) {
		res := a.send(request{method: http.MethodGet, authorization: a.alice, query: "extensions=" + url.QueryEscape(persisted(hashOf(me)))})
		require.JSONEq(t, `{"data": {"me": {"id": "111", "name": "Alice"}}}`, res.body)
		res = a.send(request{authorization: a.alice, body: body(map[string]any{
			"variables": map[string]any{"g": a.group}, "extensions": json.RawMessage(persisted(hashOf(rename))),
		})})
		require.JSONEq(t, `{"data": {"updateGroup": {"title": "Ski trip"}}}`, res.body)
	})
	t.Run("a trusted document runs in full", func(t *testing.T) {
		res := a.send(request{authorization: a.alice, body: gql(me, nil)})
		require.JSONEq(t, `{"data": {"me": {"id": "111", "name": "Alice"}}}`, res.body)
	})

	for _, tc := range []struct {
		name string
		req  request
		code string
	}{
		{"any other document", request{body: gql(`{ me { id } }`, nil)}, graph.CodeQueryNotInSafelist},
		{"a trusted document with a byte changed", request{body: gql(strings.Replace(me, "name", "username", 1), nil)}, graph.CodeQueryNotInSafelist},
		{"introspection", request{body: gql(`{ __schema { types { name } } }`, nil)}, graph.CodeQueryNotInSafelist},
		{"an unknown hash", request{method: http.MethodGet, query: "extensions=" + url.QueryEscape(persisted(hashOf(`{ me { id } }`)))}, graph.CodePersistedQueryNotInList},
		{"a document sent with its hash to register it", request{body: body(map[string]any{
			"query": `{ me { id } }`, "extensions": json.RawMessage(persisted(hashOf(`{ me { id } }`))),
		})}, graph.CodeQueryNotInSafelist},
		{"a trusted document under another's hash", request{body: body(map[string]any{
			"query": me, "extensions": json.RawMessage(persisted(hashOf(rename))),
		})}, graph.CodePersistedQueryHashMismatch},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			a.calls.Reset()
			tc.req.authorization = a.alice
			res := a.send(tc.req)
			require.Equal(t, tc.code, res.code(), res.body)
			require.False(t, res.hasData, "nothing ran")
			require.Zero(t, a.calls.Total(), "no DynamoDB call")
		})
	}
	t.Run("nothing is learnt from a client", func(t *testing.T) {
		res := a.send(request{method: http.MethodGet, authorization: a.alice, query: "extensions=" + url.QueryEscape(persisted(hashOf(`{ me { id } }`)))})
		require.Equal(t, graph.CodePersistedQueryNotInList, res.code())
	})
}

func TestIntrospectionAndSuggestionsCanBeTurnedOff(t *testing.T) {
	on := newAttacked(t)
	off := newAttacked(t, func(c *httpapi.Config) { c.DisableIntrospection, c.DisableSuggestions = true, true })
	introspection := []string{
		`{ __schema { queryType { name } } }`,
		`{ __type(name: "User") { fields { name } } }`,
		`query { ...F } fragment F on Query { me { id } __type(name: "Group") { name } }`,
		`{ ... on Query { __type(name: "Group") { name } } }`,
	}
	for _, q := range introspection {
		res := on.send(request{authorization: on.alice, body: gql(q, nil)})
		require.Empty(t, res.errors, "introspection is on by default: %s", q)
		require.True(t, res.hasData)

		off.calls.Reset()
		res = off.send(request{authorization: off.alice, body: gql(q, nil)})
		require.Equal(t, graph.CodeIntrospectionDisabled, res.code(), res.body)
		require.False(t, res.hasData, "nothing ran")
		require.Zero(t, off.calls.Total())
	}
	res := off.send(request{authorization: off.alice, body: gql(`{ __typename me { __typename id } }`, nil)})
	require.JSONEq(t, `{"data": {"__typename": "Query", "me": {"__typename": "User", "id": "111"}}}`, res.body, "__typename is no introspection")

	for _, q := range []string{
		`{ me { nam } }`,             // a field
		`{ group(idd: "x") { id } }`, // an argument
		`mutation { createExpense(input: {groupId: "x", amount: "1", description: "d", splitType: EQUL, splits: []}) { id } }`, // an enum value
		`{ me { groups(firts: 1) { nodes { id } } } }`, // another argument
	} {
		withHints := on.send(request{authorization: on.alice, body: gql(q, nil)})
		require.Contains(t, withHints.errors[0].Message, "Did you mean", q)
		without := off.send(request{authorization: off.alice, body: gql(q, nil)})
		require.Equal(t, "GRAPHQL_VALIDATION_FAILED", without.code(), without.body)
		require.NotContains(t, without.body, "Did you mean", q)
		require.Equal(t, strings.SplitN(withHints.errors[0].Message, " Did you mean", 2)[0], without.errors[0].Message,
			"the same error, without the hint")
	}
}

func TestTrustedDocumentsOverWebSocket(t *testing.T) {
	const events = `subscription Events($g: ID!) { groupEvents(groupId: $g) { id type } }`
	const rename = `mutation Rename($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "Ski trip"}) { title } }`
	docs, err := graph.ParseTrustedDocuments([]byte(`{"` + hashOf(events) + `": ` + strconvQuote(events) + `, "` + hashOf(rename) + `": ` + strconvQuote(rename) + `}`))
	require.NoError(t, err)
	api := apitest.New(t, apitest.Live(), func(c *httpapi.Config) { c.TrustedDocuments = docs })
	ann := api.User("1001", "Ann")
	g, _, err := api.Store.CreateGroup(context.Background(), store.NewGroup{Title: "Trip", Currency: usd(), Creator: store.NewMember{UserID: "1001", Name: "Ann"}})
	require.NoError(t, err)
	c, err := dialWS(t, api, map[string]any{"Authorization": ann.Header()})
	require.NoError(t, err)

	require.NoError(t, c.Subscribe(context.Background(), "other", `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, map[string]any{"g": g.ID}))
	m := waitFor(t, c, "other")
	require.Equal(t, "error", m.Type, "refused before it ran: %s", m.Payload)
	require.Contains(t, string(m.Payload), graph.CodeQueryNotInSafelist)

	require.NoError(t, c.Subscribe(context.Background(), "trusted", events, map[string]any{"g": g.ID}))
	require.Eventually(t, func() bool { return api.Live.Count() == 1 }, 10*time.Second, 5*time.Millisecond)
	ann.Must(nil, rename, "g", g.ID)
	for m = waitFor(t, c, "trusted"); strings.Contains(string(m.Payload), `"type":"GROUP_CREATED"`); m = waitFor(t, c, "trusted") {
		// the group's creation, written just before the subscription, may come first
	}
	require.Equal(t, "next", m.Type, string(m.Payload))
	require.Contains(t, string(m.Payload), `"type":"GROUP_UPDATED"`)
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
