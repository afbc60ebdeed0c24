package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Errors the store returns for outcomes callers act on. Anything else is an
// infrastructure failure.
var (
	// ErrNotFound means the item (or the group or member it needs) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a condition on the current state of an item failed,
	// such as a settlement that is no longer pending.
	ErrConflict = errors.New("conflict")
	// ErrBadCursor means a pagination cursor was not issued by this store for this list.
	ErrBadCursor = errors.New("invalid cursor")
	// ErrTooManyItems means a write would not fit in one DynamoDB transaction.
	ErrTooManyItems = errors.New("too many items for one transaction")
	// ErrTooManyCurrencies means a write would give a group balances in more
	// currencies than Options.MaxGroupCurrencies allows.
	ErrTooManyCurrencies = errors.New("too many currencies")
	// ErrForbidden means the actor's role does not allow the write.
	ErrForbidden = errors.New("forbidden")
	// ErrInvalidInput means the write asks for something that cannot be,
	// whoever asks (a role for a placeholder).
	ErrInvalidInput = errors.New("invalid input")
	// ErrArchived means the group is archived: it is read-only until a
	// member unarchives it.
	ErrArchived = errors.New("the group is archived")
)

// errArchived is the ErrArchived every refused write returns.
var errArchived = fmt.Errorf("%w: it is read-only; unarchive it (unarchiveGroup) to change anything in it", ErrArchived)

// IsCondCheckFailed reports whether err is a failed condition: either a single
// write's ConditionalCheckFailedException or a cancelled transaction in which
// any item's condition failed.
func IsCondCheckFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return true
	}
	for _, r := range cancellationReasons(err) {
		if r == reasonConditionalCheckFailed {
			return true
		}
	}
	return false
}

// isNotFound reports whether err is, or wraps, ErrNotFound.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// condFailedAt reports whether the transaction was cancelled because the
// condition of the item at index i failed.
func condFailedAt(err error, i int) bool {
	reasons := cancellationReasons(err)
	return i < len(reasons) && reasons[i] == reasonConditionalCheckFailed
}

const (
	reasonConditionalCheckFailed = "ConditionalCheckFailed"
	reasonTransactionConflict    = "TransactionConflict"
)

// cancellationReasons lists the per-item codes of a cancelled transaction
// ("None" for items that were fine), or nil if err is not one.
func cancellationReasons(err error) []string {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		if r.Code != nil {
			codes[i] = *r.Code
		}
	}
	return codes
}

func isTransactionConflict(err error) bool {
	for _, r := range cancellationReasons(err) {
		if r == reasonTransactionConflict {
			return true
		}
	}
	return false
}

// notFoundf wraps ErrNotFound with what was missing.
func notFoundf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotFound, fmt.Sprintf(format, args...))
}

// forbiddenf wraps ErrForbidden with why.
func forbiddenf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrForbidden, fmt.Sprintf(format, args...))
}

// conflictf wraps ErrConflict with why.
func conflictf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConflict, fmt.Sprintf(format, args...))
}

// VersionConflict is the ErrConflict of a write that named a version the
// item no longer has (optimistic locking, seed 004): someone else changed it
// first. Current is the version it has now.
type VersionConflict struct {
	What    string // "expense" or "group"
	Current int
}

func (e *VersionConflict) Error() string {
	return fmt.Sprintf("%v: the %s was changed meanwhile and is at version %d now; reload it and apply your change again",
		ErrConflict, e.What, e.Current)
}

// Is makes a VersionConflict an ErrConflict.
func (e *VersionConflict) Is(target error) bool { return target == ErrConflict }

// oldItemAt is the item as it was before a cancelled transaction whose
// item i asked for it (ReturnValuesOnConditionCheckFailure ALL_OLD), or nil.
func oldItemAt(err error, i int) map[string]types.AttributeValue {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return nil
	}
	return tce.CancellationReasons[i].Item
}

// IsThrottled reports whether err is DynamoDB refusing a call for capacity
// (ProvisionedThroughputExceededException, ThrottlingException,
// RequestLimitExceeded and the other codes the SDK retries as throttling),
// after the retries it was given, or a transaction cancelled because an
// item's throughput was exceeded (which the SDK does not retry).
func IsThrottled(err error) bool {
	for _, r := range cancellationReasons(err) {
		if r == reasonThrottlingError {
			return true
		}
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	_, throttled := awsretry.DefaultThrottleErrorCodes[apiErr.ErrorCode()]
	return throttled
}

// reasonThrottlingError is the cancellation reason of a transaction item
// whose table or index was over its capacity.
const reasonThrottlingError = "ThrottlingError"

// IsUnavailable reports whether err is DynamoDB out of reach, after the
// retries the SDK gave the call: the network failed (connection refused,
// reset, or closed before the whole answer came), a try or the request ran
// out of time waiting for an answer, DynamoDB answered with a server error
// (HTTP 5xx: InternalServerError, ServiceUnavailable), or the SDK refused to
// retry because its retry quota, which a run of such failures drains, was
// used up. Such a failure passes: the caller can try again shortly. A call
// cancelled because its caller went away (context.Canceled) is not one.
func IsUnavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var (
		conn   interface{ ConnectionError() bool } // the SDK's failure to send (smithyhttp.RequestSendError)
		netErr net.Error                           // refused, reset, a timeout, an EOF (as a *url.Error)
		quota  ratelimit.QuotaExceededError
		status interface{ HTTPStatusCode() int } // an answer's status (smithyhttp.ResponseError)
		apiErr smithy.APIError
	)
	switch {
	case errors.As(err, &conn) && conn.ConnectionError(),
		errors.As(err, &netErr),
		errors.Is(err, io.ErrUnexpectedEOF), // an answer cut short
		errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &quota):
		return true
	case errors.As(err, &status) && status.HTTPStatusCode() >= http.StatusInternalServerError:
		return true
	case errors.As(err, &apiErr) && apiErr.ErrorFault() == smithy.FaultServer:
		return true
	}
	return false
}
