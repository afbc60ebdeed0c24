package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/metrics"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// multipartSubscriptions is Apollo's multipart HTTP subscription protocol
// (subscriptionSpec=1.0), the one Apollo Client's HttpLink speaks: a
// multipart/mixed response whose parts are each {"payload": <result>}, an
// empty {} now and then so that proxies see the stream alive, and
// {"payload": null, "errors": [...]} when the server ends it. A request
// that cannot run is answered with one JSON result, as over plain HTTP.
type multipartSubscriptions struct {
	json      graphqlHTTP   // reads the request and answers its errors
	heartbeat time.Duration // how often an idle stream sends {}
	metrics   *metrics.Metrics
}

// multipartBoundary separates the parts of a multipart subscription.
const multipartBoundary = "graphql"

var _ graphql.Transport = multipartSubscriptions{}

// Supports takes the requests the negotiation sent here.
func (multipartSubscriptions) Supports(r *http.Request) bool {
	return streamOf(r.Context()) == streamMultipart
}

// Do streams one operation's results.
func (t multipartSubscriptions) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	w.Header().Set("Content-Type", mediaJSON+"; charset=utf-8")
	opCtx, _, _ := t.json.operation(w, r, exec, mediaJSON)
	if opCtx == nil {
		return
	}
	// The subscription is open once this returns: the response starts after,
	// so a client that sees it start knows it will see the events after.
	responses, ctx := exec.DispatchOperation(r.Context(), opCtx)
	w.Header().Set("Content-Type", fmt.Sprintf(`%s; boundary="%s"; subscriptionSpec=1.0`, mediaMultipart, multipartBoundary))
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	out := &multipartWriter{w: w, rc: http.NewResponseController(w)}
	out.write("\r\n--" + multipartBoundary) // the first delimiter, at once
	stop := out.heartbeats(ctx, t.heartbeat)
	for {
		resp := responses(ctx)
		if resp == nil {
			break
		}
		b, err := json.Marshal(struct {
			Payload *graphql.Response `json:"payload"`
		}{resp})
		if err != nil { // our bug, not the client's
			panic(fmt.Errorf("encode response: %w", err))
		}
		out.part(b)
	}
	stop()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		// The server ended it (not the client, which hears nothing more):
		// say why, outside any result.
		e := dropError(cause)
		t.metrics.CountError(e.Extensions["code"].(string))
		b, _ := json.Marshal(struct {
			Payload any           `json:"payload"`
			Errors  gqlerror.List `json:"errors"`
		}{nil, gqlerror.List{e}})
		out.part(b)
	}
	out.write("--\r\n") // the last delimiter is the one already written, closed
}

// multipartWriter writes parts, one at a time, each flushed at once and
// followed by the delimiter that tells the client it is complete.
type multipartWriter struct {
	mu sync.Mutex
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (m *multipartWriter) write(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, _ = m.w.Write([]byte(s))
	_ = m.rc.Flush()
}

// part writes one JSON part.
func (m *multipartWriter) part(body []byte) {
	m.write("\r\nContent-Type: application/json; charset=utf-8\r\n\r\n" + string(body) + "\r\n--" + multipartBoundary)
}

// heartbeats sends an empty part every interval until stop is called or
// ctx ends.
func (m *multipartWriter) heartbeats(ctx context.Context, interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				m.part([]byte("{}"))
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
