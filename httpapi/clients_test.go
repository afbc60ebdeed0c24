package httpapi_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestRealClients runs e2e/clients.test.mjs, Apollo Client and urql against
// the server, to show that what those clients rely on holds: Relay
// pagination merging, normalized caching by id, error codes.
func TestRealClients(t *testing.T) {
	dir := e2eDir(t)
	srv, s := server(t)
	runNode(t, dir, "clients.test.mjs", srv.URL+"/graphql", s)
}

// TestRealClientsLive runs e2e/live.test.mjs: Apollo Client and urql
// subscribed over graphql-transport-ws (graphql-ws) to a live server, the
// cache kept up to date by the events alone, catch-up with sync tokens, and
// the close codes of refused credentials.
func TestRealClientsLive(t *testing.T) {
	dir := e2eDir(t)
	api := apitest.New(t, apitest.Live())
	runNode(t, dir, "live.test.mjs", api.URL(), api.Store)
}

// TestRealClientsHTTP runs e2e/http.test.mjs: urql's fetchExchange, Apollo
// Client's HttpLink and the graphql-sse client, each with its own default
// Accept header, over a query, a mutation and a subscription: JSON for the
// first two, the stream each client prefers for the third.
func TestRealClientsHTTP(t *testing.T) {
	dir := e2eDir(t)
	api := apitest.New(t, apitest.Live())
	runNode(t, dir, "http.test.mjs", api.URL(), api.Store)
}

// TestGraphQLOverHTTPAudit runs e2e/audit.test.mjs: the audit suite of
// the GraphQL over HTTP spec (graphql-http's serverAudits) against the
// server, every MUST and SHOULD, where a warning fails too.
func TestGraphQLOverHTTPAudit(t *testing.T) {
	dir := e2eDir(t)
	srv, s := server(t)
	runNode(t, dir, "audit.test.mjs", srv.URL+"/graphql", s)
}

// TestRealClientsTrustedDocuments runs e2e/trusted.test.mjs twice: first to
// write the manifest of its operations as Apollo Client sends them (against
// a server with automatic persisted queries, as an app's build step would),
// then against a server that runs only that manifest, where Apollo's
// persisted query link sends hashes alone and an unlisted operation fails
// without falling back to its text.
func TestRealClientsTrustedDocuments(t *testing.T) {
	dir := e2eDir(t)
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	build := apitest.New(t)
	runNode(t, dir, "trusted.test.mjs", build.URL(), build.Store, "FRACTI_MANIFEST_OUT="+manifest)
	docs, err := graph.LoadTrustedDocuments(manifest)
	require.NoError(t, err)
	require.Equal(t, 3, docs.Len())
	api := apitest.New(t, func(c *httpapi.Config) { c.TrustedDocuments = docs })
	runNode(t, dir, "trusted.test.mjs", api.URL(), api.Store)
}

// e2eDir is the e2e/ directory, with the JavaScript clients installed.
func e2eDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../e2e")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@apollo", "client")); err != nil {
		t.Fatal("the JavaScript clients are not installed: run `npm ci --prefix e2e` (make test does)")
	}
	return dir
}

// runNode runs `node --test file` in dir against the GraphQL endpoint url,
// with access tokens for two users, Alice and Bob, and extra variables in
// its environment.
func runNode(t *testing.T, dir, file, url string, s *store.Store, extra ...string) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node.js is needed for the client tests")
	env := append(append(os.Environ(), "FRACTI_URL="+url), extra...)
	for name, id := range map[string]string{"ALICE": "4001", "BOB": "4002"} {
		token, err := auth.NewToken()
		require.NoError(t, err)
		_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: id, Name: name})
		require.NoError(t, err)
		env = append(env, "FRACTI_TOKEN_"+name+"="+token, "FRACTI_USER_"+name+"="+id)
	}
	cmd := exec.Command(node, "--test", file)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("%s", out)
}
