package httpapi

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/metrics"
)

// Uploads (importGroup's file) come as the GraphQL multipart request spec:
// a multipart/form-data POST, read by gqlgen's MultipartForm transport
// within a bound of their own (MaxUploadBytes), while every other request
// keeps MaxBodyBytes.

// DefaultMaxUploadBytes is the default bound of a multipart request (IMPORT_MAX_BYTES).
const DefaultMaxUploadBytes = 10 << 20

// DefaultMaxUploads is how many multipart requests an instance reads at
// once unless configured (IMPORT_MAX_CONCURRENT). Each holds its file in
// memory, and its import the file's plan: the cap bounds what uploads can
// take together, about this many times IMPORT_MAX_BYTES and a plan each.
const DefaultMaxUploads = 4

// preflightHeaders are the headers one of which a multipart request must
// carry, as Apollo Server requires: a browser sends a multipart form across
// sites without asking first, but never a request with a custom header, so
// a request with one was allowed by CORS (CSRF protection).
var preflightHeaders = []string{"Apollo-Require-Preflight", "GraphQL-Preflight", "X-Apollo-Operation-Name"}

// isMultipartForm reports whether r is a multipart/form-data POST.
func isMultipartForm(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && r.Method == http.MethodPost && mt == "multipart/form-data"
}

// requirePreflight refuses a multipart request without a preflight header
// with 400 BAD_REQUEST, before anything reads its body.
func requirePreflight(m *metrics.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, h := range preflightHeaders {
			if strings.TrimSpace(r.Header.Get(h)) != "" {
				next.ServeHTTP(w, r)
				return
			}
		}
		writeError(r.Context(), w, m, http.StatusBadRequest, graph.CodeBadRequest,
			"a multipart request must carry a non-empty "+strings.Join(preflightHeaders, ", ")+" header (CSRF protection)")
	})
}

// uploadTransport reads multipart requests, holding up to max bytes of
// files in memory (the whole request is bounded by max anyway).
func uploadTransport(max int64) transport.MultipartForm {
	return transport.MultipartForm{MaxUploadSize: max, MaxMemory: max + 1}
}

// limitUploads lets at most n multipart requests through at once; one more
// is refused with 503 UNAVAILABLE and a Retry-After before its body is
// read, as any overloaded request is.
func limitUploads(n int, m *metrics.Metrics, next http.Handler) http.Handler {
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", strconv.Itoa(uploadRetryAfter))
			writeError(r.Context(), w, m, http.StatusServiceUnavailable, graph.CodeUnavailable,
				"this instance is reading "+strconv.Itoa(n)+" uploads already; try again in a moment")
		}
	})
}

// uploadRetryAfter is the Retry-After, in seconds, of an upload refused at the cap.
const uploadRetryAfter = 2
