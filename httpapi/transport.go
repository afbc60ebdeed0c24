package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/metrics"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Response media types of GraphQL over HTTP.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// maxJSONDepth bounds how deeply a request's JSON may nest: far deeper than
// any input the schema takes, far shallower than the decoder's own limit.
const maxJSONDepth = 32

// graphqlHTTP is GraphQL over HTTP (graphql.github.io/graphql-over-http): a
// POST with an application/json body, or a GET with URL parameters for
// queries only, answered in application/graphql-response+json or
// application/json as the Accept header prefers. A malformed request gets a
// 4xx with a coded error and nothing runs; it is logged at INFO, never with
// its body. An operation refused for a rate limit is a 429, and one that
// produced nothing because DynamoDB could not serve it a 503, both with
// Retry-After.
type graphqlHTTP struct {
	log     *slog.Logger
	metrics *metrics.Metrics // counts the errors made here
}

var _ graphql.Transport = graphqlHTTP{}

// Supports takes every request, so that a wrong method or content type is
// answered with a coded error: add it after any transport that must see a
// request first (OPTIONS, websockets).
func (graphqlHTTP) Supports(*http.Request) bool { return true }

// requestError is a malformed request: its HTTP status and what is wrong.
type requestError struct {
	status int
	msg    string
}

func badRequest(format string, args ...any) *requestError {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// Do answers one request.
func (t graphqlHTTP) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	var operation, kind string
	defer func() { noteRequest(ctx, operation, kind) }()
	media := responseMedia(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", media+"; charset=utf-8")
	opCtx, operation, kind := t.operation(w, r, exec, media)
	if opCtx == nil {
		return
	}
	if r.Method == http.MethodGet && opCtx.Operation.Operation != ast.Query {
		w.Header().Set("Allow", "POST")
		msg := "GET requests may only run queries: send a " + string(opCtx.Operation.Operation) + " with POST"
		t.log.InfoContext(ctx, "request refused", "status", http.StatusMethodNotAllowed, "code", graph.CodeBadRequest, "reason", msg)
		writeRequestError(ctx, w, t.metrics, http.StatusMethodNotAllowed, graph.CodeBadRequest, msg)
		return
	}
	if opCtx.Operation.Operation == ast.Subscription {
		// One response cannot carry a stream of events.
		msg := "subscriptions need a live connection: a WebSocket (graphql-transport-ws), or a POST that accepts " + mediaEventStream + " or " + mediaMultipart + ";subscriptionSpec=1.0"
		t.log.InfoContext(ctx, "request refused", "status", http.StatusBadRequest, "code", graph.CodeBadRequest, "reason", msg)
		writeRequestError(ctx, w, t.metrics, http.StatusBadRequest, graph.CodeBadRequest, msg)
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, opCtx)
	resp := responses(ctx)
	if retry, limited := rateLimited(resp); limited {
		// Refused before it ran: HTTP says so too, with when to come back.
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		t.log.InfoContext(ctx, "operation refused", "code", graph.CodeRateLimited, "retryAfter", retry)
		writeErrors(ctx, w, http.StatusTooManyRequests, resp.Errors)
		return
	}
	if retry, ok := unavailable(resp); ok {
		// Nothing came of it, only because DynamoDB could not serve it
		// right now: a 503 with when to come back, which HTTP clients,
		// proxies and retry middleware understand.
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		writeErrors(ctx, w, http.StatusServiceUnavailable, resp.Errors)
		return
	}
	if len(resp.Errors) > 0 {
		noteFailed(ctx)
	}
	writeResponse(w, resp)
}

// operation reads the request and makes its operation context, which is
// nil when the request cannot run: it has been answered then, in media. It
// also returns the operation's name and type, for the access log.
func (t graphqlHTTP) operation(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, media string) (opCtx *graphql.OperationContext, operation, kind string) {
	ctx := r.Context()
	params, rerr := readParams(r)
	if rerr != nil {
		if rerr.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", "GET, POST, OPTIONS")
		}
		t.log.InfoContext(ctx, "request refused", "status", rerr.status, "code", graph.CodeBadRequest, "reason", rerr.msg)
		writeRequestError(ctx, w, t.metrics, rerr.status, graph.CodeBadRequest, rerr.msg)
		return nil, "", ""
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: graphql.Now(), End: graphql.Now()}

	opCtx, errs := exec.CreateOperationContext(ctx, params)
	operation = operationName(params, opCtx)
	if opCtx != nil && opCtx.Operation != nil {
		kind = string(opCtx.Operation.Operation)
	}
	if errs != nil {
		// A request error (parse, validation, a limit, variables): nothing
		// ran. GraphQL over HTTP answers it 200 in application/json, as a
		// GraphQL response, unless the request itself was malformed; a
		// response without data in its own media type is always a 4xx.
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs)
		code, _ := resp.Errors[0].Extensions["code"].(string)
		status := http.StatusOK
		if media == mediaGraphQLResponse || code == graph.CodeBadRequest || code == graph.CodePersistedQueryHashMismatch {
			status = http.StatusBadRequest
		}
		t.log.InfoContext(ctx, "operation refused", "code", code, "reason", short(resp.Errors[0].Message))
		writeErrors(ctx, w, status, resp.Errors)
		return nil, operation, kind
	}
	return opCtx, operation, kind
}

// rateLimited reports whether resp is an operation refused for a rate limit,
// and in how many seconds to retry.
func rateLimited(resp *graphql.Response) (retryAfter int, ok bool) {
	if resp == nil || len(resp.Data) > 0 || len(resp.Errors) == 0 {
		return 0, false
	}
	ext := resp.Errors[0].Extensions
	if code, _ := ext["code"].(string); code != graph.CodeRateLimited {
		return 0, false
	}
	retryAfter, _ = ext["retryAfter"].(int)
	return retryAfter, true
}

// unavailable reports whether resp is an operation that produced nothing
// (its data null, or every root field null) and failed UNAVAILABLE, and in
// how many seconds to retry: the longest wait its errors ask for. Such a
// response is answered as a request that could not be served, 503 without
// data (GraphQL over HTTP answers a response without data with a 4xx or
// 5xx). A response with data, even in part, stays 200: its UNAVAILABLE
// errors carry extensions.retryAfter for the fields that failed.
func unavailable(resp *graphql.Response) (retryAfter int, ok bool) {
	if resp == nil {
		return 0, false
	}
	for _, e := range resp.Errors {
		if code, _ := e.Extensions["code"].(string); code == graph.CodeUnavailable {
			seconds, _ := e.Extensions["retryAfter"].(int)
			retryAfter, ok = max(retryAfter, seconds, 1), true
		}
	}
	return retryAfter, ok && producedNothing(resp.Data)
}

// producedNothing reports whether data is absent, null, or an object whose
// every member is null.
func producedNothing(data json.RawMessage) bool {
	if len(data) == 0 || string(data) == "null" {
		return true
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return false
	}
	for _, v := range fields {
		if string(bytes.TrimSpace(v)) != "null" {
			return false
		}
	}
	return true
}

// writeErrors writes a response that has no data: the request never ran.
// It counts none of errs: those the executor made it counted as it
// presented them; writeRequestError counts the others.
func writeErrors(ctx context.Context, w http.ResponseWriter, status int, errs gqlerror.List) {
	noteFailed(ctx)
	for _, e := range errs {
		graph.TagRequestID(ctx, e)
	}
	b, _ := json.Marshal(struct {
		Errors gqlerror.List `json:"errors"`
	}{errs})
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// short keeps a log line short whatever the client sent.
func short(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// responseMedia picks the response type the Accept header prefers:
// application/graphql-response+json when it is listed at least as high as
// application/json, application/json otherwise (and when no header or only
// wildcards are sent, for older clients).
func responseMedia(accept string) string {
	best, bestQ := mediaJSON, 0.0
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				continue
			}
		}
		if q <= 0 {
			continue
		}
		switch mt {
		case mediaGraphQLResponse:
			if q >= bestQ {
				best, bestQ = mediaGraphQLResponse, q
			}
		case mediaJSON, "application/*", "*/*":
			if q > bestQ {
				best, bestQ = mediaJSON, q
			}
		}
	}
	return best
}

// readParams reads the operation from a GET's URL or a POST's JSON body.
func readParams(r *http.Request) (*graphql.RawParams, *requestError) {
	var (
		p    *graphql.RawParams
		rerr *requestError
	)
	switch r.Method {
	case http.MethodGet:
		p, rerr = readGet(r)
	case http.MethodPost:
		p, rerr = readPost(r)
	default:
		return nil, &requestError{http.StatusMethodNotAllowed, "method " + r.Method + " is not allowed: use POST (or GET for queries)"}
	}
	if rerr != nil {
		return nil, rerr
	}
	if p.Query == "" && p.Extensions["persistedQuery"] == nil {
		return nil, badRequest(`the request has no query: send {"query": "{ me { id } }"}`)
	}
	return p, nil
}

func readGet(r *http.Request) (*graphql.RawParams, *requestError) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequest("the URL's query string is malformed: %v", err)
	}
	p := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName")}
	for _, f := range []struct {
		name string
		into *map[string]any
	}{{"variables", &p.Variables}, {"extensions", &p.Extensions}} {
		if v := q.Get(f.name); v != "" {
			if rerr := decodeObject(f.name, json.RawMessage(v), f.into); rerr != nil {
				return nil, rerr
			}
		}
	}
	return p, nil
}

func readPost(r *http.Request) (*graphql.RawParams, *requestError) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != mediaJSON {
		return nil, &requestError{http.StatusUnsupportedMediaType,
			fmt.Sprintf("a POST must have Content-Type: application/json, not %q", short(ct))}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return nil, &requestError{http.StatusUnsupportedMediaType, "the body must be UTF-8, not " + short(cs)}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, &requestError{http.StatusRequestEntityTooLarge,
				"request body too large: the limit is " + strconv.FormatInt(tooLarge.Limit, 10) + " bytes"}
		}
		return nil, badRequest("the request body could not be read")
	}
	body = bytes.TrimSpace(body)
	switch {
	case len(body) == 0:
		return nil, badRequest(`the request body is empty: send {"query": "{ me { id } }"}`)
	case body[0] == '[':
		return nil, badRequest("batched requests (a JSON array) are not supported: send one operation per request")
	case body[0] != '{':
		return nil, badRequest(`the request body must be a JSON object such as {"query": "{ me { id } }"}`)
	}
	var fields struct {
		Query         json.RawMessage `json:"query"`
		OperationName json.RawMessage `json:"operationName"`
		Variables     json.RawMessage `json:"variables"`
		Extensions    json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, badRequest("the request body is not valid JSON: %s", jsonProblem(err))
	}
	p := &graphql.RawParams{}
	if rerr := decodeString("query", fields.Query, &p.Query); rerr != nil {
		return nil, rerr
	}
	if rerr := decodeString("operationName", fields.OperationName, &p.OperationName); rerr != nil {
		return nil, rerr
	}
	if rerr := decodeObject("variables", fields.Variables, &p.Variables); rerr != nil {
		return nil, rerr
	}
	if rerr := decodeObject("extensions", fields.Extensions, &p.Extensions); rerr != nil {
		return nil, rerr
	}
	return p, nil
}

// decodeString reads an optional string member.
func decodeString(name string, raw json.RawMessage, into *string) *requestError {
	if isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return badRequest("%s must be a string", name)
	}
	return nil
}

// decodeObject reads an optional object member; numbers stay exact (json.Number).
func decodeObject(name string, raw json.RawMessage, into *map[string]any) *requestError {
	if isNull(raw) {
		return nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return badRequest("%s must be a JSON object", name)
	}
	if rerr := checkJSON(name, raw); rerr != nil {
		return rerr
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(into); err != nil {
		return badRequest("%s is not valid JSON: %s", name, jsonProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("%s has data after its JSON object", name)
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// checkJSON refuses invalid JSON and JSON nested deeper than maxJSONDepth,
// before anything decodes it.
func checkJSON(what string, b []byte) *requestError {
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return badRequest("%s is not valid JSON: %s", what, jsonProblem(err))
	}
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxJSONDepth {
				return badRequest("%s nests deeper than %d levels", what, maxJSONDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// jsonProblem says what is wrong with some JSON without quoting it.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("%s (at byte %d)", syntax.Error(), syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s has the wrong type", typ.Field)
	case err == nil:
		return "malformed"
	}
	return "malformed"
}
