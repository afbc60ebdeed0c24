package auth

import "slices"

// Scope is what a credential may do.
type Scope string

const (
	// ScopeRead allows queries.
	ScopeRead Scope = "READ"
	// ScopeWrite allows mutations.
	ScopeWrite Scope = "WRITE"
)

// AllScopes are the scopes of Telegram sign-ins and of access tokens
// created before scopes existed.
var AllScopes = []Scope{ScopeRead, ScopeWrite}

// ScopesOf reads stored scope names; none (a token written before scopes)
// means every scope.
func ScopesOf(names []string) []Scope {
	if len(names) == 0 {
		return slices.Clone(AllScopes)
	}
	out := make([]Scope, len(names))
	for i, n := range names {
		out[i] = Scope(n)
	}
	return out
}

// HasScope reports whether the identity may do what s allows.
func (i Identity) HasScope(s Scope) bool { return slices.Contains(i.Scopes, s) }
