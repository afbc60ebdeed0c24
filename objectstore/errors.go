package objectstore

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
)

var (
	// ErrNotFound: no object has the key (HEAD cannot tell a missing
	// bucket from a missing key: both are not found).
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: the store did not answer in time, refused the
	// connection, or failed (5xx) after the SDK's retries; the caller
	// answers UNAVAILABLE, to be tried again later.
	ErrUnavailable = errors.New("storage unavailable")
	// ErrTooLarge: Read found an object larger than it may read.
	ErrTooLarge = errors.New("object too large")
)

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsUnavailable reports whether err says the store could not be reached
// or failed, so that the call may succeed later.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

// opError is a failed call: which, on which key, what kind of failure
// (ErrNotFound, ErrUnavailable, ErrTooLarge, or nil) and the SDK's error.
type opError struct {
	op, key string
	kind    error
	err     error
}

func (e *opError) Error() string {
	s := "objectstore: " + e.op
	if e.key != "" {
		s += " " + e.key
	}
	if e.kind != nil {
		s += ": " + e.kind.Error()
	}
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

// Unwrap gives errors.Is and errors.As both the kind and the cause.
func (e *opError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// fail wraps a call's error with its kind; nil stays nil.
func fail(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return &opError{op: op, key: key, kind: kindOf(err), err: err}
}

// kindOf sorts an error of the SDK or of the network: not found,
// unavailable, or neither (a refusal such as AccessDenied, a missing
// bucket, a canceled request: the caller's or the configuration's fault).
func kindOf(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return ErrNotFound
		case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout":
			return ErrUnavailable
		}
	}
	var resp *awshttp.ResponseError
	if errors.As(err, &resp) && resp.HTTPStatusCode() >= 500 {
		return ErrUnavailable
	}
	if errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return nil // the caller gave up: not the store's failure
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrUnavailable
	}
	return nil
}
