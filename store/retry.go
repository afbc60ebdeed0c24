package store

import (
	"context"
	"math/rand/v2"
	"time"
)

// maxBackoff caps the wait between two tries of a call.
const maxBackoff = time.Second

// retry calls try until it reports done, at most attempts times, and returns
// the error of the last call. Between calls it waits with jittered
// exponential backoff from backoff (each wait between half and one and a half
// times the current step, the step doubling up to maxBackoff), so that
// clients that failed together do not retry together. It never sleeps past
// ctx's deadline: when the next wait would end after it, retry gives up at
// once with the last error, and when ctx ends during a wait it returns
// ctx.Err().
func retry(ctx context.Context, attempts int, backoff time.Duration, try func() (done bool, err error)) error {
	for attempt := 1; ; attempt++ {
		done, err := try()
		if done || attempt >= attempts {
			return err
		}
		wait := backoff/2 + time.Duration(rand.Int64N(int64(backoff)))
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return err
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
		backoff = min(2*backoff, maxBackoff)
	}
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
