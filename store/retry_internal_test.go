package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetry(t *testing.T) {
	errAgain := errors.New("again")
	errFinal := errors.New("final")
	for _, tc := range []struct {
		name     string
		attempts int
		backoff  time.Duration
		timeout  time.Duration // 0: no deadline
		cancel   bool          // ctx is cancelled before the first call
		succeed  int           // the call that succeeds (1-based); 0: none
		final    int           // the call that fails for good; 0: none
		calls    int           // 0: more than one
		err      error
	}{
		{name: "first call succeeds", attempts: 3, backoff: time.Millisecond, succeed: 1, calls: 1},
		{name: "retries until success", attempts: 5, backoff: time.Millisecond, succeed: 3, calls: 3},
		{name: "gives up after attempts with the last error", attempts: 4, backoff: time.Millisecond, calls: 4, err: errAgain},
		{name: "a final error is not retried", attempts: 5, backoff: time.Millisecond, final: 2, calls: 2, err: errFinal},
		{name: "one attempt never waits", attempts: 1, backoff: time.Hour, calls: 1, err: errAgain},
		{name: "stops when ctx is cancelled", attempts: 5, backoff: time.Millisecond, cancel: true, calls: 1, err: context.Canceled},
		{name: "does not wait past the deadline", attempts: 5, backoff: time.Hour, timeout: time.Second, calls: 1, err: errAgain},
		{name: "retries while the deadline allows", attempts: 100, backoff: 20 * time.Millisecond, timeout: 300 * time.Millisecond, err: errAgain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tc.timeout > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tc.timeout)
			}
			defer cancel()
			if tc.cancel {
				cancel()
			}
			calls := 0
			err := retry(ctx, tc.attempts, tc.backoff, func() (bool, error) {
				calls++
				switch calls {
				case tc.succeed:
					return true, nil
				case tc.final:
					return true, errFinal
				}
				return false, errAgain
			})
			require.ErrorIs(t, err, tc.err)
			if tc.calls > 0 {
				require.Equal(t, tc.calls, calls)
			} else {
				require.Greater(t, calls, 1)
			}
			// With a deadline, errAgain (not DeadlineExceeded, which a
			// sleep cut short by the deadline returns) is the proof that it
			// gave up before the deadline rather than sleeping into it: no
			// wall-clock comparison, which a loaded machine makes flaky.
		})
	}
}
