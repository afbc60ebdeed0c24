package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// Throttling is injected as DynamoDB sends it (HTTP 400,
// ProvisionedThroughputExceededException) under the SDK's retryer, which
// NewClient configures.
func TestThrottledCalls(t *testing.T) {
	for _, tc := range []struct {
		name      string
		throttled int           // attempts of TransactWriteItems throttled after the group is created
		timeout   time.Duration // the request's deadline
		attempts  int           // tries of the expense's transaction
		throttle  bool          // the write fails, throttled
		noTime    bool          // …because the deadline was too near to wait
	}{
		{name: "retried until DynamoDB accepts", throttled: 3, timeout: 30 * time.Second, attempts: 4},
		{name: "given up after ThrottleAttempts", throttled: 100, timeout: 30 * time.Second, attempts: store.ThrottleAttempts, throttle: true},
		{name: "not retried when the deadline is too near to wait", throttled: 100, timeout: time.Second, attempts: 1, throttle: true, noTime: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			throttle := dynamotest.ThrottleWhen(func(op string, n int) bool {
				return op == "TransactWriteItems" && n >= 2 && n < 2+tc.throttled
			})
			f := newFixture(t, throttle.Option())
			g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, Creator: user("1")})
			require.NoError(t, err)
			before := throttle.Attempts("TransactWriteItems")

			reqCtx, cancel := context.WithTimeout(ctx, tc.timeout)
			defer cancel()
			e, err := f.CreateExpense(reqCtx, g.Title, equalExpense(g, "1", "5.00", "1"), "")
			require.Equal(t, tc.attempts, throttle.Attempts("TransactWriteItems")-before, "tries of the expense's transaction")
			require.NoError(t, reqCtx.Err(), "never waits past the deadline")
			if !tc.throttle {
				require.NoError(t, err)
				got, err := f.getExpense(e.ID)
				require.NoError(t, err)
				require.Equal(t, e.ID, got.ID, "written once it went through")
				return
			}
			require.True(t, store.IsThrottled(err), "the caller can tell throttling: %v", err)
			require.Equal(t, tc.noTime, errors.Is(err, store.ErrNoTimeToRetry), "%v", err)
			page, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
			require.NoError(t, err)
			require.Empty(t, page.Items, "nothing written")
		})
	}
}

func TestIsThrottled(t *testing.T) {
	require.False(t, store.IsThrottled(nil))
	require.False(t, store.IsThrottled(errors.New("ProvisionedThroughputExceededException")))
	require.False(t, store.IsThrottled(conflict()))
}
