package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// ErrCallBudget means a request has made every DynamoDB call it may.
var ErrCallBudget = errors.New("database call budget exhausted")

// callBudget is what is left of one request's DynamoDB calls.
type callBudget struct {
	limit int64
	used  atomic.Int64
}

type callBudgetKey struct{}

// WithCallBudget allows the calls made with ctx (and contexts derived from
// it, such as a request's loaders) at most n DynamoDB calls between them;
// each further call fails with ErrCallBudget before it is sent. n <= 0 means
// no limit. Retries of one call by the SDK count once.
func WithCallBudget(ctx context.Context, n int) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, callBudgetKey{}, &callBudget{limit: int64(n)})
}

// CallsMade is the number of DynamoDB calls made under ctx's budget (0 without one).
func CallsMade(ctx context.Context) int {
	b, _ := ctx.Value(callBudgetKey{}).(*callBudget)
	if b == nil {
		return 0
	}
	return int(min(b.used.Load(), b.limit))
}

// enforceCallBudget is client middleware that spends one call of the
// context's budget per operation.
func enforceCallBudget(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("CallBudget",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if b, _ := ctx.Value(callBudgetKey{}).(*callBudget); b != nil && b.used.Add(1) > b.limit {
					return middleware.InitializeOutput{}, middleware.Metadata{},
						fmt.Errorf("%w: a request may make at most %d database calls", ErrCallBudget, b.limit)
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	})
}
