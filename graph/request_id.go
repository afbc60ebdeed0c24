package graph

import (
	"context"

	"github.com/vektah/gqlparser/v2/gqlerror"
)

type requestIDKey struct{}

// WithRequestID marks ctx with the id of the HTTP request it serves: every
// GraphQL error then carries it as extensions.requestId, so that a client's
// bug report leads to the server's log line.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the id of the request ctx serves, "" outside one.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// TagRequestID adds the id of the request ctx serves to e's extensions as
// requestId (nothing outside a request).
func TagRequestID(ctx context.Context, e *gqlerror.Error) {
	id := RequestID(ctx)
	if id == "" {
		return
	}
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["requestId"] = id
}
