package limits

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Extension enforces a Config on every operation of a gqlgen server: the
// document checks before gqlgen parses and validates it, complexity after
// validation and before anything runs. Add it after any extension that
// fills in the query (automatic persisted queries).
type Extension struct {
	config Config
	es     graphql.ExecutableSchema
	// passed remembers documents that passed CheckDocument, which depends on
	// the text alone, so a client repeating its queries is not checked again.
	passed graphql.Cache[struct{}]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = &Extension{}

// New returns the extension for cfg (zero fields take their defaults).
func New(cfg Config) *Extension {
	return &Extension{config: cfg.withDefaults(), passed: lru.New[struct{}](1000)}
}

// ExtensionName names the extension for gqlgen.
func (e *Extension) ExtensionName() string { return "Limits" }

// Validate keeps the schema, which complexity needs.
func (e *Extension) Validate(es graphql.ExecutableSchema) error {
	e.es = es
	return nil
}

// MutateOperationParameters checks the document before gqlgen parses and validates it.
func (e *Extension) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if _, ok := e.passed.Get(ctx, p.Query); ok {
		return nil
	}
	if err := e.config.CheckDocument(ctx, p.Query); err != nil {
		return err
	}
	e.passed.Add(ctx, p.Query, struct{}{})
	return nil
}

// MutateOperationContext refuses an operation whose complexity, with its
// variables, is over the limit.
func (e *Extension) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	n, err := Complexity(ctx, e.es, opCtx.Operation, opCtx.Variables)
	if err != nil {
		return err
	}
	if limit := e.config.MaxComplexity; n > limit {
		return exceeded(CodeComplexityLimit, limit,
			"the operation has complexity %s, over the limit of %d: ask for fewer or smaller lists", count(n), limit)
	}
	return nil
}
