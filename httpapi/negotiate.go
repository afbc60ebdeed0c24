package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/fracti/api/graph/limits"
	"github.com/vektah/gqlparser/v2/ast"
)

// Which answer a POST to /graphql gets. A query or a mutation is one result:
// it is answered in JSON whenever the client accepts JSON, whatever else it
// lists (urql lists text/event-stream and multipart/mixed on every request).
// A stream is for a subscription, or for a client that accepts nothing but
// server-sent events. The operation's type is in the body, so choosing means
// reading it first (see streamFor).

// Media types of the streams /graphql answers with.
const (
	mediaEventStream = "text/event-stream"
	mediaMultipart   = "multipart/mixed"
)

// stream is how a POST is answered when it is not with one JSON result.
type stream int

const (
	streamNone      stream = iota // one JSON result (graphqlHTTP)
	streamSSE                     // server-sent events (graphql-sse's distinct connections mode)
	streamMultipart               // Apollo's multipart subscriptions (subscriptionSpec=1.0)
)

// accepted is what an Accept header says about the types /graphql speaks:
// the quality of each (0: not accepted) and, to break ties between the two
// streams, the position each was listed at.
type accepted struct {
	json                 float64 // application/json, application/graphql-response+json or a wildcard
	sse, multipart       float64
	ssePos, multipartPos int
	// subscriptionSpec: multipart/mixed was listed with subscriptionSpec,
	// which Apollo Client sends for subscriptions only.
	subscriptionSpec bool
}

// parseAccept reads an Accept header. Wildcards count for JSON only: a
// client that names no stream type is not sent one.
func parseAccept(accept string) accepted {
	var a accepted
	pos := 0
	for part := range strings.SplitSeq(accept, ",") {
		pos++
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil || q <= 0 {
				continue
			}
		}
		switch mt {
		case mediaJSON, mediaGraphQLResponse, "application/*", "*/*":
			a.json = max(a.json, q)
		case mediaEventStream:
			if q > a.sse {
				a.sse, a.ssePos = q, pos
			}
		case mediaMultipart:
			// Version 1.0 is the one there is; a later one is not spoken here.
			if spec, ok := params["subscriptionspec"]; ok && spec != "1.0" {
				continue
			}
			if q > a.multipart {
				a.multipart, a.multipartPos = q, pos
				_, a.subscriptionSpec = params["subscriptionspec"]
			}
		}
	}
	return a
}

// preferredStream is the stream the client ranks higher (listed first on a
// tie), or streamNone when it accepts neither.
func (a accepted) preferredStream() stream {
	switch {
	case a.sse == 0 && a.multipart == 0:
		return streamNone
	case a.multipart > a.sse || (a.multipart == a.sse && a.multipartPos < a.ssePos):
		return streamMultipart
	default:
		return streamSSE
	}
}

// negotiator chooses the answer to each POST before anything else reads it.
type negotiator struct {
	maxBody int64         // the body limit: a larger body is left to the JSON transport to refuse
	limits  limits.Config // bounds the parse that finds the operation's type
}

// streamFor is the stream r is to be answered with, or streamNone for one
// JSON result. It reads the body only when the client accepts a stream, and
// leaves it to be read again.
func (n negotiator) streamFor(r *http.Request) stream {
	if r.Method != http.MethodPost {
		return streamNone
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != mediaJSON {
		return streamNone // the JSON transport says what is wrong
	}
	a := parseAccept(r.Header.Get("Accept"))
	preferred := a.preferredStream()
	if preferred == streamNone {
		return streamNone
	}
	switch sub, known := n.subscription(r, a.subscriptionSpec); {
	case sub:
		return preferred
	case !known && a.subscriptionSpec:
		// Only a persisted query's hash was sent: Apollo Client asks for
		// multipart subscriptions on subscriptions alone, so believe it.
		return streamMultipart
	case a.json == 0 && a.sse > 0:
		return streamSSE // it accepts no JSON: graphql-sse streams queries too
	}
	return streamNone
}

// subscription peeks at r's body: whether its operation is a subscription;
// known is false when the body has no query text (only a persisted query's
// hash), which is told only when hashOnly may matter. A body that cannot be
// read or parsed within the limits is no subscription: the JSON transport
// reads it again and reports the error.
func (n negotiator) subscription(r *http.Request, hashOnly bool) (sub, known bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, n.maxBody+1))
	// Whatever was read is read again, followed by whatever was not.
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || int64(len(body)) > n.maxBody {
		return false, true
	}
	// No subscription is written without the word, nor sent in JSON without
	// it or an escape that spells it: most bodies (every urql query) stop
	// here, without being decoded.
	if !hashOnly && !bytes.Contains(body, []byte(ast.Subscription)) && !bytes.Contains(body, []byte(`\u`)) {
		return false, true
	}
	var p struct {
		Query         string `json:"query"`
		OperationName string `json:"operationName"`
	}
	if json.Unmarshal(body, &p) != nil {
		return false, true
	}
	if p.Query == "" {
		return false, false
	}
	// No subscription is written without the word: most requests stop here.
	if !strings.Contains(p.Query, string(ast.Subscription)) {
		return false, true
	}
	return n.limits.OperationType(p.Query, p.OperationName) == ast.Subscription, true
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

type streamKey struct{}

// withStream records on ctx the stream its request is answered with.
func withStream(ctx context.Context, s stream) context.Context {
	return context.WithValue(ctx, streamKey{}, s)
}

// streamOf is the stream recorded on ctx (streamNone if none).
func streamOf(ctx context.Context) stream {
	s, _ := ctx.Value(streamKey{}).(stream)
	return s
}
