package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/store"
)

// requestIDHeader carries a request's id both ways: a proxy's id is kept,
// and every response names its own.
const requestIDHeader = "X-Request-Id"

// clientRequestID is the shape of a request id the server adopts from its
// caller; anything else is replaced, so that a log line never carries more
// than an id.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// accessRecord is what the access log line and the metrics say about one
// request beyond its timing and status. The transport fills it in before it
// returns, on the request's own goroutine.
type accessRecord struct {
	operation string
	kind      string // query, mutation or subscription; "" when none was found
	user      string
	failed    bool // the response carried errors
}

type accessKey struct{}

// noteRequest records, for its access log line and metrics, the operation
// the request ctx serves ran, its type, and who made it, if the request
// needed to know: a request refused before it ran looks no token up, not
// even for its log line.
func noteRequest(ctx context.Context, operation, kind string) {
	rec, _ := ctx.Value(accessKey{}).(*accessRecord)
	if rec == nil {
		return
	}
	rec.operation, rec.kind = operation, kind
	if id, ok := auth.Known(ctx); ok {
		rec.user = id.UserKey()
	}
}

// noteFailed records that the response to the request ctx serves carries
// errors.
func noteFailed(ctx context.Context) {
	if rec, _ := ctx.Value(accessKey{}).(*accessRecord); rec != nil {
		rec.failed = true
	}
}

// withRequest gives each request an id (the caller's X-Request-Id when it
// is a plain id, else a new one; returned in the same header), a deadline,
// a budget of DynamoDB calls, and one access log line when it is done: id,
// operation, user, status, duration and DynamoDB calls. Never a token or a
// body. The same figures go to the metrics, with the capacity the calls consumed.
func withRequest(log *slog.Logger, calls int, m *metrics.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(w, r)
		rec := &accessRecord{}
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		ctx = store.WithCallBudget(graph.WithRequestID(context.WithValue(ctx, accessKey{}, rec), id), calls)
		ctx = metrics.WithRequestCapacity(ctx)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))

		took, calls := time.Since(start), store.CallsMade(ctx)
		log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("operation", rec.operation),
			slog.String("user", rec.user),
			slog.Int("status", sw.code()),
			slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			slog.Int("dynamodb_calls", calls),
		)
		m.ObserveRequest(metrics.Request{Operation: rec.operation, Type: rec.kind, Status: sw.code(),
			Failed: rec.failed || sw.code() >= 400, Duration: took, DynamoDBCalls: calls, CapacityUnits: metrics.RequestCapacity(ctx)})
	})
}

// requestID is the id of a request: its caller's X-Request-Id when that is
// a plain id, else a new one. It is returned in the same header.
func requestID(w http.ResponseWriter, r *http.Request) string {
	id := r.Header.Get(requestIDHeader)
	if !clientRequestID.MatchString(id) {
		id = newRequestID()
	}
	w.Header().Set(requestIDHeader, id)
	return id
}

// liveRecord is what the log line of a live connection says beyond its
// timing: who held it (known once a WebSocket's connection_init is
// accepted) and why the server ended it, if it did.
type liveRecord struct {
	mu     sync.Mutex
	user   string
	reason string
}

type liveRecordKey struct{}

// noteLive records on ctx's live connection who holds it and, when reason
// is not empty, why the server ends it.
func noteLive(ctx context.Context, user, reason string) {
	rec, _ := ctx.Value(liveRecordKey{}).(*liveRecord)
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if user != "" {
		rec.user = user
	}
	if reason != "" && rec.reason == "" {
		rec.reason = reason
	}
}

// withLiveLog gives a live connection a request id, as withRequest gives a
// request, and one log line when it ends: id, transport, user, how long it
// was open and why the server ended it. The line comes at the end because
// a connection's life is what an operator looks for.
func withLiveLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &liveRecord{}
		ctx := graph.WithRequestID(context.WithValue(r.Context(), liveRecordKey{}, rec), requestID(w, r))
		next.ServeHTTP(w, r.WithContext(ctx))

		transport := transportName(r)
		// A WebSocket's line comes when it ends, after its handler returned.
		liveEndFrom(ctx).after(func() {
			rec.mu.Lock()
			user, reason := rec.user, rec.reason
			rec.mu.Unlock()
			if reason == "" {
				reason = "client" // it closed, or its only subscription completed
			}
			log.LogAttrs(ctx, slog.LevelInfo, "live connection",
				slog.String("transport", transport),
				slog.String("user", user),
				slog.Float64("duration_s", time.Since(start).Seconds()),
				slog.String("ended_by", reason),
			)
		})
	})
}

// operationName is the name of the operation a request runs: the one it
// chose, or the name of its document's only operation ("" if anonymous).
func operationName(params *graphql.RawParams, opCtx *graphql.OperationContext) string {
	if params.OperationName != "" {
		return params.OperationName
	}
	if opCtx != nil && opCtx.Operation != nil {
		return opCtx.Operation.Name
	}
	return ""
}

// newRequestID is 16 random bytes in hex.
func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the status sent: 200 when the handler wrote nothing.
func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// requestLog adds the request id to every line logged with a request's
// context, so that a resolver's error and the access line match up.
type requestLog struct{ slog.Handler }

func (h requestLog) Handle(ctx context.Context, r slog.Record) error {
	if id := graph.RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if ev := graph.EventOf(ctx); ev != nil { // a shared render: no request of its own
		r.AddAttrs(slog.String("group", ev.GroupID), slog.Int64("seq", ev.Seq))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestLog{h.Handler.WithAttrs(attrs)}
}

func (h requestLog) WithGroup(name string) slog.Handler { return requestLog{h.Handler.WithGroup(name)} }
