package dynamotest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Counter counts the DynamoDB operations a client sends, by name, the
// items its reads return, and the sequential waves they came in.
//
// A call's wave is one more than the highest wave of any call that had
// finished when it started: calls sent together share a wave, and a call
// that had to wait for another's answer comes a wave later. Waves is the
// highest wave, the round trips on a request's critical path. A slow
// scheduler can only push a call into a later wave, never an earlier one,
// so the fewest waves over a few runs is the honest figure.
type Counter struct {
	mu       sync.Mutex
	ops      map[string]int
	items    int
	scanned  int // items Queries and Scans looked at, before their filters
	finished int // the highest wave among finished calls
}

// Option installs the counter on a client.
func (c *Counter) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("CountCalls",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					c.mu.Lock()
					if c.ops == nil {
						c.ops = map[string]int{}
					}
					c.ops[middleware.GetOperationName(ctx)]++
					wave := c.finished + 1
					c.mu.Unlock()
					out, md, err := next.HandleInitialize(ctx, in)
					c.mu.Lock()
					c.items += itemsRead(out.Result)
					c.scanned += itemsScanned(out.Result)
					c.finished = max(c.finished, wave)
					c.mu.Unlock()
					return out, md, err
				}), middleware.After)
		})
	}
}

// Total is the number of calls counted since the last Reset.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.ops {
		n += v
	}
	return n
}

// ByOperation returns a copy of the counts per operation name.
func (c *Counter) ByOperation() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.ops))
	for k, v := range c.ops {
		out[k] = v
	}
	return out
}

// ItemsRead is the number of items reads returned since the last Reset.
func (c *Counter) ItemsRead() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items
}

// ItemsScanned is the number of items Queries and Scans looked at since the
// last Reset, those their filters dropped included: what they read, and pay for.
func (c *Counter) ItemsScanned() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scanned
}

// Waves is the number of sequential waves of calls since the last Reset.
func (c *Counter) Waves() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.finished
}

// Reset sets every count back to zero.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.ops, c.items, c.scanned, c.finished = nil, 0, 0, 0
	c.mu.Unlock()
}

// itemsRead is how many items a read operation's output holds.
func itemsRead(result any) int {
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		if out.Item != nil {
			return 1
		}
	case *dynamodb.QueryOutput:
		return len(out.Items)
	case *dynamodb.ScanOutput:
		return len(out.Items)
	case *dynamodb.BatchGetItemOutput:
		n := 0
		for _, items := range out.Responses {
			n += len(items)
		}
		return n
	}
	return 0
}

// itemsScanned is how many items a Query or Scan looked at.
func itemsScanned(result any) int {
	switch out := result.(type) {
	case *dynamodb.QueryOutput:
		return int(out.ScannedCount)
	case *dynamodb.ScanOutput:
		return int(out.ScannedCount)
	}
	return 0
}

// Fault makes a client fail chosen calls before they reach DynamoDB: inject
// decides, per operation name and call number (1-based, per operation),
// which error to return instead of calling, or nil to let the call through.
type Fault struct {
	mu     sync.Mutex
	calls  map[string]int
	inject func(op string, n int) error
}

// NewFault returns a Fault driven by inject.
func NewFault(inject func(op string, n int) error) *Fault {
	return &Fault{calls: map[string]int{}, inject: inject}
}

// Option installs the fault on a client.
func (f *Fault) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("InjectFault",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					op := middleware.GetOperationName(ctx)
					f.mu.Lock()
					f.calls[op]++
					n := f.calls[op]
					f.mu.Unlock()
					if err := f.inject(op, n); err != nil {
						return middleware.InitializeOutput{}, middleware.Metadata{}, err
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}

// Latency makes every call of a client take at least d longer, as a network
// between the server and DynamoDB would. DynamoDB Local answers in about a
// millisecond, less than a busy machine may take to start the goroutines of
// calls sent together; with the delay, calls sent together overlap and are
// counted in one wave however they are scheduled.
func Latency(d time.Duration) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("Latency",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					select {
					case <-time.After(d):
					case <-ctx.Done():
						return middleware.InitializeOutput{}, middleware.Metadata{}, ctx.Err()
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	}
}

// Throttle makes DynamoDB answer chosen attempts of a client's calls the way
// it does when a table or account is over its capacity: HTTP 400 with a
// throttling error such as ProvisionedThroughputExceededException. The
// answer goes through the SDK's own deserializer and retryer, as one from AWS
// would; DynamoDB Local never throttles.
type Throttle struct {
	mu       sync.Mutex
	attempts map[string]int
	throttle func(op string, attempt int) string
}

// NewThrottle returns a Throttle that answers the attempts throttle picks,
// by operation name and attempt number (1-based, per operation, counting
// every try of every call), with the error code it returns
// (ProvisionedThroughputExceededException, ThrottlingException, …); ""
// lets the attempt through.
func NewThrottle(throttle func(op string, attempt int) string) *Throttle {
	return &Throttle{attempts: map[string]int{}, throttle: throttle}
}

// ThrottleWhen is NewThrottle answering the attempts when picks with
// ProvisionedThroughputExceededException.
func ThrottleWhen(when func(op string, attempt int) bool) *Throttle {
	return NewThrottle(func(op string, attempt int) string {
		if when(op, attempt) {
			return "ProvisionedThroughputExceededException"
		}
		return ""
	})
}

// Attempts is how many tries of op reached the network or were throttled.
func (t *Throttle) Attempts(op string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.attempts[op]
}

// Option installs the throttle on a client, between the deserializer and the
// network, so that each retry passes through it.
func (t *Throttle) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Deserialize.Add(middleware.DeserializeMiddlewareFunc("InjectThrottle",
				func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
					op := middleware.GetOperationName(ctx)
					t.mu.Lock()
					t.attempts[op]++
					n := t.attempts[op]
					t.mu.Unlock()
					code := t.throttle(op, n)
					if code == "" {
						return next.HandleDeserialize(ctx, in)
					}
					body := `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `",` +
						`"message":"The level of configured provisioned throughput for the table was exceeded."}`
					return middleware.DeserializeOutput{RawResponse: &smithyhttp.Response{Response: &http.Response{
						StatusCode:    http.StatusBadRequest,
						Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
						Body:          io.NopCloser(strings.NewReader(body)),
						ContentLength: int64(len(body)),
					}}}, middleware.Metadata{}, nil
				}), middleware.After)
		})
	}
}
