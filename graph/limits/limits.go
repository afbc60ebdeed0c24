// Package limits refuses GraphQL operations that would cost too much, before
// they cost anything: the document's size and tokens are checked before it
// is parsed, its shape (depth, aliases, root fields, selections, directives,
// fragment spreads) before it is validated, and its complexity before it
// runs. Every count follows fragments, and each fragment is counted once
// (memoized), so a fragment spread twice in each of thirty nested fragments
// costs thirty steps, not 2^30.
package limits

import (
	"fmt"

	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Config holds the limits; a zero field means the default of Defaults.
type Config struct {
	// MaxDocumentBytes bounds the query text.
	MaxDocumentBytes int
	// MaxTokens bounds the query's lexical tokens, counted before parsing.
	MaxTokens int
	// MaxDepth bounds how deeply fields nest, fragments followed
	// (introspection below __schema and __type excepted: its own rule bounds it).
	MaxDepth int
	// MaxAliases bounds the aliased fields of an operation, fragments expanded.
	MaxAliases int
	// MaxRootFields bounds the fields at an operation's top level, fragments expanded.
	MaxRootFields int
	// MaxSelections bounds the fields of an operation, fragments expanded.
	MaxSelections int
	// MaxDirectives bounds the directives written in the document.
	MaxDirectives int
	// MaxFragmentSpreads bounds the fragment spreads written in the document.
	MaxFragmentSpreads int
	// MaxComplexity bounds an operation's complexity: every field costs 1,
	// and a list field costs its children once per item it may return.
	MaxComplexity int
}

// Defaults are limits that the Playground's introspection, the README's
// examples and the apps' screens pass with room to spare, in the spirit of
// graphql-armor's.
func Defaults() Config {
	return Config{
		MaxDocumentBytes:   16 << 10,
		MaxTokens:          2_000,
		MaxDepth:           10,
		MaxAliases:         20,
		MaxRootFields:      10,
		MaxSelections:      500,
		MaxDirectives:      30,
		MaxFragmentSpreads: 100,
		MaxComplexity:      30_000,
	}
}

// withDefaults fills zero fields from Defaults.
func (c Config) withDefaults() Config {
	d := Defaults()
	for _, f := range []struct{ v, def *int }{
		{&c.MaxDocumentBytes, &d.MaxDocumentBytes}, {&c.MaxTokens, &d.MaxTokens}, {&c.MaxDepth, &d.MaxDepth},
		{&c.MaxAliases, &d.MaxAliases}, {&c.MaxRootFields, &d.MaxRootFields}, {&c.MaxSelections, &d.MaxSelections},
		{&c.MaxDirectives, &d.MaxDirectives}, {&c.MaxFragmentSpreads, &d.MaxFragmentSpreads},
		{&c.MaxComplexity, &d.MaxComplexity},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return c
}

// The extensions.code of each refusal.
const (
	CodeDocumentTooLarge    = "DOCUMENT_TOO_LARGE"
	CodeTokenLimit          = "TOKEN_LIMIT_EXCEEDED"
	CodeDepthLimit          = "DEPTH_LIMIT_EXCEEDED"
	CodeAliasLimit          = "ALIAS_LIMIT_EXCEEDED"
	CodeRootFieldLimit      = "ROOT_FIELD_LIMIT_EXCEEDED"
	CodeSelectionLimit      = "SELECTION_LIMIT_EXCEEDED"
	CodeDirectiveLimit      = "DIRECTIVE_LIMIT_EXCEEDED"
	CodeFragmentSpreadLimit = "FRAGMENT_SPREAD_LIMIT_EXCEEDED"
	CodeComplexityLimit     = "COMPLEXITY_LIMIT_EXCEEDED"
	// CodeTimeout: the request's deadline passed while the operation was being checked.
	CodeTimeout = "REQUEST_TIMEOUT"
)

// exceeded is the refusal of one limit: its code, a message naming the
// limit, and the limit itself in extensions.limit.
func exceeded(code string, limit int, format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{
		Message:    fmt.Sprintf(format, args...),
		Extensions: map[string]any{"code": code, "limit": limit},
	}
}

// saturating adds counts without overflowing: past cap they stay at cap, so
// an exponential expansion stops at a number just over the limit.
func saturating(a, b, cap int) int {
	if a >= cap-b {
		return cap
	}
	return a + b
}
