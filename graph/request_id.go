package graph

import "context"

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
