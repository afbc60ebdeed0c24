package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/exchange/export"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/store"
)

// ExportPath is where a group's exports are served: ExportPath + id +
// ".json" (Fracti's JSON document) or ".csv" (Splitwise's group layout).
const ExportPath = export.PathPrefix

// exportMedia is each export format's Content-Type.
var exportMedia = map[string]string{
	"json": "application/json; charset=utf-8",
	"csv":  "text/csv; charset=utf-8; header=present",
	"zip":  "application/zip",
}

// groupIDPattern is what a group id looks like: anything else is no group.
var groupIDPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// exportHandler serves GET ExportPath{id}.{json,csv}: the group's data,
// streamed page by page from the table, to its members only, with the
// credentials /graphql takes. Anyone else, and an unknown id, gets the
// same 404; no credentials, 401. An export counts as one read against the
// caller's daily quota.
type exportHandler struct {
	store   *store.Store
	log     *slog.Logger
	metrics *metrics.Metrics
	meter   *quota.Meter
	now     func() time.Time
	// objects opens the receipts a zip export carries (nil: no storage).
	objects export.Objects
}

func (h exportHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	groupID, ext, _ := strings.Cut(r.PathValue("file"), ".")
	defer func() { noteRequest(ctx, "export", ext) }()
	w.Header().Set("Cache-Control", "no-store")
	id, ok := h.caller(w, r)
	if !ok {
		return
	}
	media, known := exportMedia[ext]
	if !known || !groupIDPattern.MatchString(groupID) {
		h.notFound(ctx, w)
		return
	}
	items, err := h.store.GetGroupItems(ctx, []store.GroupItemKey{store.GroupKey(groupID), store.MemberKey{GroupID: groupID, UserID: id.UserKey()}.Item()})
	if err != nil {
		h.failed(ctx, w, err)
		return
	}
	g, m := items[0].Group, items[1].Member
	if g == nil || !m.Active() {
		h.notFound(ctx, w)
		return
	}
	// The writer is wrapped (the access log's status): the controller
	// finds the Flusher beneath.
	rc := http.NewResponseController(w)
	started := &startedWriter{ResponseWriter: w}
	x := export.Export{Store: h.store, Group: g, Now: h.clock(), Flush: func() { _ = rc.Flush() }}
	w.Header().Set("Content-Type", media)
	w.Header().Set("Content-Disposition", x.ContentDisposition(ext))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch ext {
	case "csv":
		err = x.CSV(ctx, started)
	case "zip":
		err = x.Zip(ctx, started, h.objects)
	default:
		err = x.JSON(ctx, started)
	}
	if err == nil {
		return
	}
	if !started.started {
		w.Header().Del("Content-Disposition")
		h.failed(ctx, w, err)
		return
	}
	// Part of the file has gone out with a 200: end the response without
	// its last chunk, so that the client sees a broken download rather
	// than a file that looks whole.
	h.log.ErrorContext(ctx, "export failed midway", "group", groupID, "format", ext, "error", err.Error())
	panic(http.ErrAbortHandler)
}

// caller is the signed-in user allowed to read, or false once the request
// has been answered: 401 without valid credentials (after the rate without
// them), 403 for a token without the READ scope, 429 past the daily quota.
func (h exportHandler) caller(w http.ResponseWriter, r *http.Request) (auth.Identity, bool) {
	ctx := r.Context()
	if err := auth.FailureFrom(ctx); err != nil && errors.Is(err, auth.ErrAuthUnavailable) {
		h.failed(ctx, w, err)
		return auth.Identity{}, false
	}
	id, ok := auth.FromContext(ctx)
	if !ok || id.UserID == 0 {
		if h.limited(ctx, w, h.meter.AllowAnonymous(quota.ClientAddr(ctx))) {
			return auth.Identity{}, false
		}
		msg := `sign in first: send the header "Authorization: tma <initData>" or "Authorization: Bearer <token>"`
		if err := auth.FailureFrom(ctx); err != nil {
			msg = err.Error()
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="fracti"`)
		writeError(ctx, w, h.metrics, http.StatusUnauthorized, graph.CodeUnauthenticated, msg)
		return auth.Identity{}, false
	}
	if !id.HasScope(auth.ScopeRead) {
		writeError(ctx, w, h.metrics, http.StatusForbidden, graph.CodeForbidden, "this access token lacks the READ scope that exports need")
		return auth.Identity{}, false
	}
	if h.limited(ctx, w, h.meter.Allow(ctx, id.UserKey(), quota.Read)) {
		return auth.Identity{}, false
	}
	return id, true
}

// limited answers 429 when err is a quota's refusal.
func (h exportHandler) limited(ctx context.Context, w http.ResponseWriter, err error) bool {
	var ex *quota.ExceededError
	if !errors.As(err, &ex) {
		return false
	}
	w.Header().Set("Retry-After", strconv.Itoa(ex.RetryAfterSeconds()))
	writeError(ctx, w, h.metrics, http.StatusTooManyRequests, graph.CodeRateLimited, ex.Error())
	return true
}

// notFound is the answer to an unknown group and to a group the caller is
// not in, byte for byte the same.
func (h exportHandler) notFound(ctx context.Context, w http.ResponseWriter) {
	writeError(ctx, w, h.metrics, http.StatusNotFound, graph.CodeNotFound, "group not found")
}

// failed answers a failure of the table before anything was written: 503
// with Retry-After when DynamoDB could not serve it right now, else 500.
func (h exportHandler) failed(ctx context.Context, w http.ResponseWriter, err error) {
	if store.IsThrottled(err) || store.IsUnavailable(err) || errors.Is(err, context.DeadlineExceeded) {
		w.Header().Set("Retry-After", "1")
		writeError(ctx, w, h.metrics, http.StatusServiceUnavailable, graph.CodeUnavailable, "the export could not be read right now: try again")
		return
	}
	h.log.ErrorContext(ctx, "export failed", "error", err.Error())
	writeError(ctx, w, h.metrics, http.StatusInternalServerError, graph.CodeInternal, "internal server error")
}

func (h exportHandler) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

// startedWriter records whether anything has been written.
type startedWriter struct {
	http.ResponseWriter
	started bool
}

func (s *startedWriter) Write(b []byte) (int, error) {
	s.started = true
	return s.ResponseWriter.Write(b)
}
