package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
)

// maxBackoff caps the wait between two tries of a call.
const maxBackoff = time.Second

// retry calls try until it reports done, at most attempts times, and returns
// the error of the last call. Between calls it waits with jittered
// exponential backoff from backoff (see jitter; the step doubling up to
// maxBackoff), so that clients that failed together do not retry together.
// It never sleeps past ctx's deadline: when the next wait would end after it,
// retry gives up at once with the last error, and when ctx ends during a wait
// it returns ctx.Err().
func retry(ctx context.Context, attempts int, backoff time.Duration, try func() (done bool, err error)) error {
	for attempt := 1; ; attempt++ {
		done, err := try()
		if done || attempt >= attempts {
			return err
		}
		wait := jitter(backoff)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return err
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// jitter is a wait of between half and one and a half times step.
func jitter(step time.Duration) time.Duration {
	return step/2 + time.Duration(rand.Int64N(int64(step)))
}

// sleep waits for d, or returns ctx.Err() when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// ThrottleAttempts is how many times a call DynamoDB throttles (or fails in
// another way the SDK deems passing, such as a 500) is tried in all.
const ThrottleAttempts = 8

// throttleBackoff is the first step of the wait before trying a throttled
// call again: short, since a request is waiting for it.
const throttleBackoff = 25 * time.Millisecond

// ErrNoTimeToRetry joins a call's last error when the request's deadline is
// too near to wait and try it again.
var ErrNoTimeToRetry = errors.New("no time left before the request's deadline to try again")

// newRetryer is the SDK's standard retryer (throttling, transient errors,
// its retry quota) with backoff fit for a request someone waits for: up to
// ThrottleAttempts tries, waits jittered around 25 ms, 50 ms, 100 ms, …
// capped at maxBackoff, and never a wait that could outlast the request's
// deadline.
func newRetryer() aws.RetryerV2 {
	return withinDeadline{awsretry.NewStandard(func(o *awsretry.StandardOptions) {
		o.MaxAttempts = ThrottleAttempts
		o.Backoff = awsretry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
			step := throttleBackoff
			for i := 1; i < attempt && step < maxBackoff; i++ {
				step *= 2
			}
			return jitter(min(step, maxBackoff)), nil
		})
	})}
}

// withinDeadline refuses to retry a call when the context's deadline is
// nearer than the longest wait the backoff may choose: the SDK sleeps only
// after asking for a retry token, and only the token request sees the
// context.
type withinDeadline struct{ *awsretry.Standard }

// longestWait is the most the backoff ever waits before a try.
const longestWait = maxBackoff + maxBackoff/2

// GetRetryToken hands out a retry token only when there is time to use it.
func (w withinDeadline) GetRetryToken(ctx context.Context, opErr error) (func(error) error, error) {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < longestWait {
		return nil, ErrNoTimeToRetry
	}
	return w.Standard.GetRetryToken(ctx, opErr)
}
