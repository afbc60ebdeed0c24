package httpapi_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestRealClients runs e2e/clients.test.mjs, Apollo Client and urql against
// the server, to show that what those clients rely on holds: Relay
// pagination merging, normalized caching by id, error codes.
func TestRealClients(t *testing.T) {
	dir, err := filepath.Abs("../e2e")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@apollo", "client")); err != nil {
		t.Fatal("the JavaScript clients are not installed: run `npm ci --prefix e2e` (make test does)")
	}
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node.js is needed for the client tests")

	srv, s := server(t)
	env := append(os.Environ(), "FRACTI_URL="+srv.URL+"/graphql")
	for name, id := range map[string]string{"ALICE": "4001", "BOB": "4002"} {
		token, err := auth.NewToken()
		require.NoError(t, err)
		_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: id, Name: name})
		require.NoError(t, err)
		env = append(env, "FRACTI_TOKEN_"+name+"="+token, "FRACTI_USER_"+name+"="+id)
	}
	cmd := exec.Command(node, "--test", "clients.test.mjs")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("%s", out)
}
