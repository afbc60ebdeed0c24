package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Error codes in extensions.code.
const (
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeForbidden       = "FORBIDDEN"
	CodeNotFound        = "NOT_FOUND"
	CodeBadUserInput    = "BAD_USER_INPUT"
	CodeConflict        = "CONFLICT"
	CodeInternal        = "INTERNAL_SERVER_ERROR"
	// CodeBadRequest: the HTTP request itself is malformed (not JSON, wrong
	// content type, a mutation over GET …); nothing was run.
	CodeBadRequest = "BAD_REQUEST"
	// CodeRateLimited: a daily quota, or the rate without credentials, is
	// used up; extensions.retryAfter says in how many seconds to ask again.
	CodeRateLimited = "RATE_LIMITED"
	// CodeCallBudgetExceeded: the operation needed more DynamoDB calls than one request may make.
	CodeCallBudgetExceeded = "CALL_BUDGET_EXCEEDED"
	// CodeUnavailable: the server cannot do this right now but will soon:
	// DynamoDB throttled the call or could not be reached (after the retries
	// the call was given), or this instance is not reading live updates.
	// extensions.retryAfter says in how many seconds to try again; a write
	// that failed so wrote nothing, or wrote it whole.
	CodeUnavailable = "UNAVAILABLE"
)

// ReasonGroupArchived is extensions.reason of a change refused because its
// group is archived (FORBIDDEN): unarchiveGroup reopens it.
const ReasonGroupArchived = "GROUP_ARCHIVED"

// Seconds a client is told to wait (extensions.retryAfter) before trying an
// operation DynamoDB could not serve again: the SDK has already retried for
// a few seconds, throttling passes as capacity frees up, each second, and an
// outage takes a little longer.
const (
	throttledRetryAfter   = 1
	unreachableRetryAfter = 3
)

func codedError(code, msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": code}}
}

// badInput names the input field at fault (a path such as "input.splits[2].amount").
func badInput(field, format string, args ...any) *gqlerror.Error {
	e := codedError(CodeBadUserInput, field+": "+fmt.Sprintf(format, args...))
	e.Extensions["field"] = field
	return e
}

func notFound(what string) *gqlerror.Error { return codedError(CodeNotFound, what+" not found") }

func forbidden(msg string) *gqlerror.Error { return codedError(CodeForbidden, msg) }

func conflict(msg string) *gqlerror.Error { return codedError(CodeConflict, msg) }

func unauthenticated(msg string) *gqlerror.Error { return codedError(CodeUnauthenticated, msg) }

// orNotFound is err if there is one, else a NOT_FOUND error for what.
func orNotFound(err error, what string) error {
	if err != nil {
		return err
	}
	return notFound(what)
}

// internalMessage is all a client learns of a failure on our side.
const internalMessage = "internal server error; please retry later"

// ErrorPresenter gives every error an extensions.code. Errors the resolvers
// shaped pass as they are; the store's outcome errors map to their codes (a
// stale version is CONFLICT with extensions.currentVersion); DynamoDB
// throttling or out of reach is UNAVAILABLE with extensions.retryAfter (and
// the cause logged); anything else is logged in full and shown as INTERNAL_SERVER_ERROR with
// nothing internal in it (no DynamoDB text, no stack). Inside an HTTP
// request, every error also carries extensions.requestId.
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	present := withErrorCode(log)
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := present(ctx, err)
		TagRequestID(ctx, e)
		return e
	}
}

// countCodes tells count the code of every error present presents; every
// error a client receives from the executor passes here exactly once (a
// cancellation whose client is gone or completed the operation is not
// counted: nothing is sent).
func countCodes(present graphql.ErrorPresenterFunc, count func(code string)) graphql.ErrorPresenterFunc {
	if count == nil {
		return present
	}
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := present(ctx, err)
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return e // its client went away or completed it: no one receives it
		}
		code, _ := e.Extensions["code"].(string)
		count(code)
		return e
	}
}

// withErrorCode is the presenter's first step: the error with its code.
func withErrorCode(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if gqlErr.Extensions["code"] != nil {
			return gqlErr // shaped by a resolver, or gqlgen's own parse and validation failures
		}
		var stale *store.VersionConflict
		switch {
		case errors.As(err, &stale):
			e := withCode(gqlErr, CodeConflict, err.Error())
			e.Extensions["currentVersion"] = stale.Current
			return e
		case errors.Is(err, store.ErrBadCursor):
			return withCode(gqlErr, CodeBadUserInput, "after: "+err.Error())
		case errors.Is(err, store.ErrNotFound):
			return withCode(gqlErr, CodeNotFound, "not found")
		case errors.Is(err, store.ErrArchived):
			return withReason(withCode(gqlErr, CodeForbidden, err.Error()), ReasonGroupArchived)
		case errors.Is(err, store.ErrConflict):
			return withCode(gqlErr, CodeConflict, err.Error())
		case errors.Is(err, store.ErrForbidden):
			return withCode(gqlErr, CodeForbidden, err.Error())
		case errors.Is(err, store.ErrInvalidInput):
			return withCode(gqlErr, CodeBadUserInput, err.Error())
		case errors.Is(err, store.ErrTooManyItems):
			return withCode(gqlErr, CodeBadUserInput, err.Error())
		case errors.Is(err, store.ErrTooManyCurrencies):
			return withCode(gqlErr, CodeConflict, tooManyCurrencies(err))
		case errors.Is(err, store.ErrCallBudget):
			return withCode(gqlErr, CodeCallBudgetExceeded,
				"the operation needs more database calls than one request may make ("+strconv.Itoa(store.CallsMade(ctx))+"): ask for fewer things at once")
		case store.IsThrottled(err):
			return withRetryAfter(withCode(gqlErr, CodeUnavailable, "the database is over its capacity right now: try again in a moment"), throttledRetryAfter)
		case store.IsUnavailable(err):
			log.WarnContext(ctx, "database unavailable", "path", gqlErr.Path.String(), "error", err)
			return withRetryAfter(withCode(gqlErr, CodeUnavailable, "the database cannot be reached right now: try again in a moment"), unreachableRetryAfter)
		case errors.Is(err, context.Canceled):
			return withCode(gqlErr, CodeInternal, "request cancelled")
		}
		log.ErrorContext(ctx, "resolver failed", "path", gqlErr.Path.String(), "error", err)
		return withCode(gqlErr, CodeInternal, internalMessage)
	}
}

func withCode(e *gqlerror.Error, code, msg string) *gqlerror.Error {
	e.Message = msg
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
	return e
}

// withRetryAfter tells the client of e in how many seconds to try again.
func withRetryAfter(e *gqlerror.Error, seconds int) *gqlerror.Error {
	e.Extensions["retryAfter"] = seconds
	return e
}

// internalError marks a failure that must be shown only as INTERNAL_SERVER_ERROR.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// RecoverFunc turns a panic in a resolver into an INTERNAL_SERVER_ERROR for
// that field instead of a dropped connection, and logs it.
func RecoverFunc(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "resolver panicked", "panic", p, "path", graphql.GetPath(ctx).String())
		return codedError(CodeInternal, internalMessage)
	}
}
