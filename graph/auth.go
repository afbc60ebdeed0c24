package graph

import (
	"context"
	"errors"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/store"
)

// RequireAuth refuses every root field but introspection to callers without
// valid credentials, and root mutation fields to credentials without the
// WRITE scope (FORBIDDEN with extensions.requiredScope). Introspection stays
// open so that Playground can load the schema before a token is pasted. As
// field middleware its error takes the normal path: a non-null root field's
// null propagates to data.
func RequireAuth(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Parent == nil || fc.Parent.Parent != nil || strings.HasPrefix(fc.Field.Name, "__") {
		return next(ctx) // not a root field, or introspection
	}
	id, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	if fc.Object == "Mutation" && !id.HasScope(auth.ScopeWrite) {
		return nil, missingScope(id, auth.ScopeWrite)
	}
	return next(ctx)
}

// viewer is the signed-in user, or the reason there is none.
func viewer(ctx context.Context) (auth.Identity, error) {
	if err := auth.FailureFrom(ctx); err != nil {
		if errors.Is(err, auth.ErrAuthUnavailable) {
			if store.IsThrottled(err) || store.IsUnavailable(err) {
				// The credentials could not be checked yet: UNAVAILABLE, try again.
				return auth.Identity{}, err
			}
			return auth.Identity{}, &internalError{err}
		}
		return auth.Identity{}, unauthenticated(err.Error())
	}
	id, ok := auth.FromContext(ctx)
	if !ok || id.UserID == 0 {
		return auth.Identity{}, unauthenticated(`sign in first: send the header "Authorization: tma <initData>" or "Authorization: Bearer <token>"`)
	}
	return id, nil
}

// viewerID is the signed-in user's id; RequireAuth guarantees there is one.
func viewerID(ctx context.Context) string {
	id, _ := auth.FromContext(ctx)
	return id.UserKey()
}
