package graph_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fracti/api/graph"
	"github.com/stretchr/testify/require"
)

func sha(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(sum[:])
}

func TestParseTrustedDocuments(t *testing.T) {
	const me, groups = `query Me { me { id name } }`, `query Groups { me { groups { nodes { id title } } } }`
	apollo := func(ops ...map[string]any) string {
		b, _ := json.Marshal(map[string]any{"format": "apollo-persisted-query-manifest", "version": 1, "operations": ops})
		return string(b)
	}
	op := func(id, body string) map[string]any {
		return map[string]any{"id": id, "name": "Op", "type": "query", "body": body}
	}
	for _, tc := range []struct {
		name     string
		manifest string
		count    int
		err      string
	}{
		{name: "Apollo's manifest", manifest: apollo(op(sha(me), me), op(sha(groups), groups)), count: 2},
		{name: "a map of id to document", manifest: `{"` + sha(me) + `": ` + quote(me) + `}`, count: 1},
		{name: "an id that is not the document's SHA-256", manifest: apollo(op(sha(groups), me)), err: "not the SHA-256"},
		{name: "a document the schema does not have", manifest: apollo(op(sha(`{ me { shoeSize } }`), `{ me { shoeSize } }`)), err: "not valid against this server's schema"},
		{name: "a document that does not parse", manifest: `{"` + sha(`{ me {`) + `": "{ me {"}`, err: "not valid"},
		{name: "the same id twice", manifest: apollo(op(sha(me), me), op(sha(me), me)), err: "listed twice"},
		{name: "no operations", manifest: apollo(), err: "no operations"},
		{name: "another version", manifest: `{"format": "apollo-persisted-query-manifest", "version": 2, "operations": []}`, err: "version 2"},
		{name: "an unknown format", manifest: `{"format": "relay", "operations": []}`, err: "unknown manifest format"},
		{name: "not JSON", manifest: `query Me { me { id } }`, err: "not a JSON object"},
		{name: "a map with something else than documents", manifest: `{"` + sha(me) + `": 7}`, err: "map of id to document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := graph.ParseTrustedDocuments([]byte(tc.manifest))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.count, docs.Len())
		})
	}
}

func TestLoadTrustedDocumentsNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "manifest.json")
	_, err := graph.LoadTrustedDocuments(path)
	require.ErrorContains(t, err, "manifest.json")
	require.NoError(t, os.WriteFile(path, []byte(`{}`), 0o600))
	_, err = graph.LoadTrustedDocuments(path)
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "no operations")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
