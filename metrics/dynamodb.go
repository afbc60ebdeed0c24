package metrics

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// DynamoDB returns the client option that measures a DynamoDB client's
// calls: how many, how long, how many attempts after the first, how many
// attempts were throttled, and the capacity they consumed (it asks for
// ReturnConsumedCapacity TOTAL on every operation that reports it, unless
// the caller asked for more detail already). Pass it to store.NewClient.
func (m *Metrics) DynamoDB() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		if m != nil {
			o.APIOptions = append(o.APIOptions, m.addMiddleware)
		}
	}
}

// DynamoDBStreams returns the client option that measures a DynamoDB
// Streams client's calls like DynamoDB's (they report no capacity). Pass it
// to store.NewStreamsClient.
func (m *Metrics) DynamoDBStreams() func(*dynamodbstreams.Options) {
	return func(o *dynamodbstreams.Options) {
		if m != nil {
			o.APIOptions = append(o.APIOptions, m.addMiddleware)
		}
	}
}

// callState is what one call's middleware shares with its attempts'.
type callState struct {
	attempts atomic.Int32
}

type callStateKey struct{}

// addMiddleware adds the call's measure at the end of the Initialize step
// (once per call, after the call budget let it through), and the
// attempt's right after the retry middleware in the Finalize step, so that
// it sees every attempt whatever retryer the client has.
func (m *Metrics) addMiddleware(st *middleware.Stack) error {
	if err := st.Initialize.Add(middleware.InitializeMiddlewareFunc("MeasureCall", m.measureCall), middleware.After); err != nil {
		return err
	}
	attempt := middleware.FinalizeMiddlewareFunc("MeasureAttempt", m.measureAttempt)
	if _, ok := st.Finalize.Get("Retry"); ok {
		return st.Finalize.Insert(attempt, "Retry", middleware.After)
	}
	return st.Finalize.Add(attempt, middleware.Before)
}

func (m *Metrics) measureCall(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	op := middleware.GetOperationName(ctx)
	m.dynamoCalls.WithLabelValues(op).Inc()
	in.Parameters = withConsumedCapacity(in.Parameters)
	ctx = middleware.WithStackValue(ctx, callStateKey{}, &callState{})
	start := time.Now()
	out, md, err := next.HandleInitialize(ctx, in)
	m.dynamoDuration.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		m.dynamoFailures.WithLabelValues(op, failureCode(err)).Inc()
	} else if units, ok := consumedCapacity(out.Result); ok {
		m.dynamoCapacity.WithLabelValues(op).Add(units)
		if rc, _ := ctx.Value(requestCapacityKey{}).(*requestCapacity); rc != nil {
			rc.add(units)
		}
	}
	return out, md, err
}

// requestCapacity sums the capacity units one request's calls consumed.
type requestCapacity struct {
	mu    sync.Mutex
	units float64
}

func (rc *requestCapacity) add(units float64) {
	rc.mu.Lock()
	rc.units += units
	rc.mu.Unlock()
}

type requestCapacityKey struct{}

// WithRequestCapacity sums the capacity units DynamoDB reports for the calls
// made under the returned context (and contexts derived from it, such as a
// request's loaders), for RequestCapacity.
func WithRequestCapacity(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestCapacityKey{}, &requestCapacity{})
}

// RequestCapacity is the capacity units consumed under ctx so far (0
// without WithRequestCapacity): what the request costs on the bill.
func RequestCapacity(ctx context.Context) float64 {
	rc, _ := ctx.Value(requestCapacityKey{}).(*requestCapacity)
	if rc == nil {
		return 0
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.units
}

func (m *Metrics) measureAttempt(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	op := middleware.GetOperationName(ctx)
	if call, _ := middleware.GetStackValue(ctx, callStateKey{}).(*callState); call != nil && call.attempts.Add(1) > 1 {
		m.dynamoRetries.WithLabelValues(op).Inc()
	}
	out, md, err := next.HandleFinalize(ctx, in)
	if err != nil && throttled(err) {
		m.dynamoThrottles.WithLabelValues(op).Inc()
	}
	return out, md, err
}

// throttleCodes are the error codes DynamoDB and DynamoDB Streams refuse
// an attempt with for throughput: a table's or index's capacity, the
// account's request rate, a stream shard's read rate.
var throttleCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
	"LimitExceededException":                 true,
}

// throttled reports whether an attempt failed for throughput: with a
// throttling code, or as a transaction cancelled because an item's
// throughput was exceeded.
func throttled(err error) bool {
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		for _, r := range cancelled.CancellationReasons {
			if r.Code != nil && *r.Code == "ThrottlingError" {
				return true
			}
		}
		return false
	}
	var api smithy.APIError
	return errors.As(err, &api) && throttleCodes[api.ErrorCode()]
}

// apiErrorCode is the shape of AWS error codes, which label failed calls.
var apiErrorCode = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]{0,63}$`)

// failureCode is a failed call's label: its AWS error code, Canceled or
// DeadlineExceeded when its context ended, else Other (a network failure).
func failureCode(err error) string {
	var api smithy.APIError
	switch {
	case errors.As(err, &api) && apiErrorCode.MatchString(api.ErrorCode()):
		return api.ErrorCode()
	case errors.Is(err, context.Canceled):
		return "Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "DeadlineExceeded"
	}
	return "Other"
}

// withConsumedCapacity is a copy of an operation's input that asks for the
// total capacity consumed, for the operations that report it; the caller's
// own input is never changed, and one that asks already keeps its choice.
func withConsumedCapacity(params any) any {
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		return askTotal(in, func(c *dynamodb.GetItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.PutItemInput:
		return askTotal(in, func(c *dynamodb.PutItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.UpdateItemInput:
		return askTotal(in, func(c *dynamodb.UpdateItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.DeleteItemInput:
		return askTotal(in, func(c *dynamodb.DeleteItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.QueryInput:
		return askTotal(in, func(c *dynamodb.QueryInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.ScanInput:
		return askTotal(in, func(c *dynamodb.ScanInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.BatchGetItemInput:
		return askTotal(in, func(c *dynamodb.BatchGetItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.BatchWriteItemInput:
		return askTotal(in, func(c *dynamodb.BatchWriteItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.TransactGetItemsInput:
		return askTotal(in, func(c *dynamodb.TransactGetItemsInput) *types.ReturnConsumedCapacity {
			return &c.ReturnConsumedCapacity
		})
	case *dynamodb.TransactWriteItemsInput:
		return askTotal(in, func(c *dynamodb.TransactWriteItemsInput) *types.ReturnConsumedCapacity {
			return &c.ReturnConsumedCapacity
		})
	}
	return params
}

// askTotal is a copy of in with ReturnConsumedCapacity TOTAL, or in itself
// when it asks for consumed capacity already.
func askTotal[T any](in *T, field func(*T) *types.ReturnConsumedCapacity) any {
	if in == nil || *field(in) != "" {
		return in
	}
	c := *in
	*field(&c) = types.ReturnConsumedCapacityTotal
	return &c
}

// consumedCapacity is the capacity units an operation's output reports,
// summed over its tables (and their indexes); false when it reports none.
func consumedCapacity(result any) (float64, bool) {
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		return unitsOf(out.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		return unitsOf(out.ConsumedCapacity)
	case *dynamodb.TransactGetItemsOutput:
		return unitsOf(out.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		return unitsOf(out.ConsumedCapacity)
	}
	return 0, false
}

func units(c *types.ConsumedCapacity) (float64, bool) {
	if c == nil || c.CapacityUnits == nil {
		return 0, false
	}
	return *c.CapacityUnits, true
}

func unitsOf(list []types.ConsumedCapacity) (float64, bool) {
	var sum float64
	var found bool
	for i := range list {
		if u, ok := units(&list[i]); ok {
			sum, found = sum+u, true
		}
	}
	return sum, found
}
