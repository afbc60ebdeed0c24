package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/graph/generated"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Codes of a server that runs only trusted documents, as Apollo's router
// names them.
const (
	CodePersistedQueryNotInList = "PERSISTED_QUERY_NOT_IN_LIST"
	CodeQueryNotInSafelist      = "QUERY_NOT_IN_SAFELIST"
)

// apolloManifestFormat marks Apollo's persisted query manifest.
const apolloManifestFormat = "apollo-persisted-query-manifest"

// TrustedDocuments is the list of operations a server restricted to them
// runs, each known by the SHA-256 of its text: the operations the mobile apps
// and the Mini App were built with, and nothing else.
type TrustedDocuments struct {
	byHash map[string]string
}

// LoadTrustedDocuments reads a manifest of trusted documents (see
// ParseTrustedDocuments) from a file.
func LoadTrustedDocuments(path string) (*TrustedDocuments, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trusted documents: %w", err)
	}
	docs, err := ParseTrustedDocuments(b)
	if err != nil {
		return nil, fmt.Errorf("trusted documents %s: %w", path, err)
	}
	return docs, nil
}

// ParseTrustedDocuments reads a manifest in either format clients' build
// tools write:
//
//   - Apollo's persisted query manifest:
//     {"format": "apollo-persisted-query-manifest", "version": 1,
//     "operations": [{"id": "<sha256>", "name": "Home", "type": "query", "body": "query Home { … }"}]}
//   - a map of id to document, as GraphQL Code Generator's
//     persisted-documents.json: {"<sha256>": "query Home { … }"}
//
// Every id must be the SHA-256 (hex) of its document, and every document
// must be valid against the schema: a manifest built for another version of
// the API is refused here, when the server starts, rather than one request
// at a time.
func ParseTrustedDocuments(manifest []byte) (*TrustedDocuments, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(manifest, &head); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	ids := map[string]string{}
	switch head.Format {
	case apolloManifestFormat:
		if head.Version != 1 {
			return nil, fmt.Errorf("%s version %d: only version 1 is known", apolloManifestFormat, head.Version)
		}
		var m struct {
			Operations []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
				Body string `json:"body"`
			} `json:"operations"`
		}
		if err := json.Unmarshal(manifest, &m); err != nil {
			return nil, err
		}
		for _, op := range m.Operations {
			if _, dup := ids[op.ID]; dup {
				return nil, fmt.Errorf("operation %s (%s) is listed twice", op.ID, op.Name)
			}
			ids[op.ID] = op.Body
		}
	case "":
		if err := json.Unmarshal(manifest, &ids); err != nil {
			return nil, fmt.Errorf("expected an Apollo persisted query manifest or a map of id to document: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown manifest format %q", head.Format)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no operations: a server restricted to them would run nothing")
	}
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	byHash := make(map[string]string, len(ids))
	for _, id := range slices.Sorted(maps.Keys(ids)) { // the first bad one, the same on every start
		body := ids[id]
		hash := queryHash(body)
		if hash != strings.ToLower(id) {
			return nil, fmt.Errorf("operation %s: the id is not the SHA-256 of its document (%s)", id, hash)
		}
		if _, errs := gqlparser.LoadQuery(schema, body); len(errs) > 0 {
			return nil, fmt.Errorf("operation %s is not valid against this server's schema: %s", id, errs[0].Message)
		}
		byHash[hash] = body
	}
	return &TrustedDocuments{byHash: byHash}, nil
}

// Len is how many operations are trusted.
func (d *TrustedDocuments) Len() int { return len(d.byHash) }

// trustedOnly runs only trusted documents, sent by their hash in Apollo's
// extensions.persistedQuery (what Apollo Client's and urql's persisted query
// links send) or in full. It takes the place of automatic persisted
// queries: nothing a client sends is ever added to the list.
type trustedOnly struct{ docs *TrustedDocuments }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = trustedOnly{}

func (trustedOnly) ExtensionName() string                   { return "TrustedDocuments" }
func (trustedOnly) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters fills in the document of a request that sent
// only its hash, and refuses any document not in the list.
func (t trustedOnly) MutateOperationParameters(_ context.Context, params *graphql.RawParams) *gqlerror.Error {
	hash, byHash, err := persistedQuery(params.Extensions)
	if err != nil {
		return err
	}
	if params.Query == "" && byHash {
		doc, ok := t.docs.byHash[strings.ToLower(hash)]
		if !ok {
			return codedError(CodePersistedQueryNotInList,
				"this server runs only its trusted documents, and "+hash+" is not one of them")
		}
		params.Query = doc
		return nil
	}
	if _, ok := t.docs.byHash[queryHash(params.Query)]; !ok {
		return codedError(CodeQueryNotInSafelist,
			"this server runs only its trusted documents, and this operation is not one of them")
	}
	if byHash && !strings.EqualFold(hash, queryHash(params.Query)) {
		return codedError(CodePersistedQueryHashMismatch,
			"extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it")
	}
	return nil
}
