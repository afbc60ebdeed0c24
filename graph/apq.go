package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Codes of Apollo's automatic persisted queries.
const (
	CodePersistedQueryNotFound     = "PERSISTED_QUERY_NOT_FOUND"
	CodePersistedQueryHashMismatch = "PERSISTED_QUERY_HASH_MISMATCH"
)

// persistedQueries is Apollo's automatic persisted queries protocol
// (extensions.persistedQuery {version: 1, sha256Hash}), with a code on every
// refusal. A query is remembered only once it has been validated and passed
// the limits, so the cache never holds a document the server would refuse.
type persistedQueries struct {
	cache graphql.Cache[string]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = persistedQueries{}

func newPersistedQueries() persistedQueries {
	return persistedQueries{cache: lru.New[string](1000)}
}

func (persistedQueries) ExtensionName() string                   { return "AutomaticPersistedQuery" }
func (persistedQueries) Validate(graphql.ExecutableSchema) error { return nil }

// persistedQuery reads extensions.persistedQuery: ok is false when the
// request has none.
func persistedQuery(ext map[string]any) (hash string, ok bool, err *gqlerror.Error) {
	raw, present := ext["persistedQuery"]
	if !present || raw == nil {
		return "", false, nil
	}
	pq, isObject := raw.(map[string]any)
	if !isObject {
		return "", false, codedError(CodeBadRequest, "extensions.persistedQuery must be an object {version: 1, sha256Hash}")
	}
	if !isOne(pq["version"]) {
		return "", false, codedError(CodeBadRequest, "extensions.persistedQuery.version must be 1")
	}
	hash, _ = pq["sha256Hash"].(string)
	if len(hash) != sha256.Size*2 {
		return "", false, codedError(CodeBadRequest, "extensions.persistedQuery.sha256Hash must be a SHA-256 hash in hex")
	}
	return hash, true, nil
}

// MutateOperationParameters fills in the query of a request that sent only
// its hash, and checks the hash of one that sent both.
func (p persistedQueries) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	hash, ok, err := persistedQuery(params.Extensions)
	if err != nil || !ok {
		return err
	}
	if params.Query == "" {
		q, found := p.cache.Get(ctx, hash)
		if !found {
			// Apollo's clients look for this message and code, then send the query.
			return codedError(CodePersistedQueryNotFound, "PersistedQueryNotFound")
		}
		params.Query = q
		return nil
	}
	if queryHash(params.Query) != hash {
		return codedError(CodePersistedQueryHashMismatch,
			"extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it")
	}
	return nil
}

// MutateOperationContext remembers a query sent with its hash, now that it
// has been validated and found within the limits.
func (p persistedQueries) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if hash, ok, _ := persistedQuery(opCtx.Extensions); ok {
		p.cache.Add(ctx, hash, opCtx.RawQuery)
	}
	return nil
}

// isOne reports whether a decoded JSON value is the number 1.
func isOne(v any) bool {
	switch n := v.(type) {
	case json.Number:
		return n.String() == "1"
	case float64:
		return n == 1
	case int64:
		return n == 1
	}
	return false
}

func queryHash(q string) string {
	h := sha256.Sum256([]byte(q))
	return hex.EncodeToString(h[:])
}
