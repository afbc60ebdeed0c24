package graph

import (
	"context"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// CodeIntrospectionDisabled refuses an operation that asks for the schema
// (__schema or __type) on a server with introspection off.
const CodeIntrospectionDisabled = "INTROSPECTION_DISABLED"

// noIntrospection refuses, once the operation is validated and before
// anything runs, any document that selects __schema or __type anywhere
// (fragments included). __typename stays allowed: clients' caches ask for
// it everywhere.
type noIntrospection struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = noIntrospection{}

func (noIntrospection) ExtensionName() string                   { return "NoIntrospection" }
func (noIntrospection) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext refuses an operation that introspects.
func (noIntrospection) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	sets := make([]ast.SelectionSet, 0, len(opCtx.Doc.Operations)+len(opCtx.Doc.Fragments))
	for _, op := range opCtx.Doc.Operations {
		sets = append(sets, op.SelectionSet)
	}
	for _, f := range opCtx.Doc.Fragments {
		sets = append(sets, f.SelectionSet)
	}
	if slices.ContainsFunc(sets, introspects) {
		return codedError(CodeIntrospectionDisabled, "introspection is turned off on this server")
	}
	return nil
}

// introspects reports whether a selection set asks for __schema or __type
// at any depth.
func introspects(set ast.SelectionSet) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name == "__schema" || s.Name == "__type" || introspects(s.SelectionSet) {
				return true
			}
		case *ast.InlineFragment:
			if introspects(s.SelectionSet) {
				return true
			}
		}
	}
	return false
}

// withoutSuggestions drops the "Did you mean …?" that validation adds to
// unknown fields, arguments, types and enum values, which would spell out
// the schema to someone probing a server with introspection off.
func withoutSuggestions(present graphql.ErrorPresenterFunc) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := present(ctx, err)
		if i := strings.Index(e.Message, " Did you mean "); i >= 0 {
			e.Message = e.Message[:i]
		}
		return e
	}
}
