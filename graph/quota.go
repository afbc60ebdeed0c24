package graph

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/quota"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// limitRate counts every operation against its caller's daily quota (a
// mutation as a write, anything else as a read), or against its client
// address when it has no valid credentials, and refuses it, before anything
// runs, once that is used up.
func (r *Resolver) limitRate(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if r.Quota == nil || eventFrom(ctx) != nil { // an event's rendering is no request of the viewer's
		return next(ctx)
	}
	kind := quota.Read
	if op := graphql.GetOperationContext(ctx).Operation; op != nil && op.Operation == ast.Mutation {
		kind = quota.Write
	}
	var err error
	if id, ok := auth.FromContext(ctx); ok {
		err = r.Quota.Allow(ctx, id.UserKey(), kind)
	} else {
		err = r.Quota.AllowAnonymous(quota.ClientAddr(ctx))
	}
	var ex *quota.ExceededError
	if !errors.As(err, &ex) {
		return next(ctx)
	}
	return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{rateLimited(ex)}})
}

// rateLimited is the error of a refused operation.
func rateLimited(ex *quota.ExceededError) *gqlerror.Error {
	e := codedError(CodeRateLimited, ex.Error())
	e.Extensions["retryAfter"] = ex.RetryAfterSeconds()
	return e
}

// limitOrNil shows a limit, null for none.
func limitOrNil(n int64) *int {
	if n <= 0 {
		return nil
	}
	i := int(n)
	return &i
}
