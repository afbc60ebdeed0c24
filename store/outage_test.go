package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// outageFixture is a store whose client reaches DynamoDB Local through a
// network that stages outages, with tries cut short after attemptTimeout.
func outageFixture(t *testing.T, attemptTimeout time.Duration) (fixture, *dynamotest.Network) {
	t.Helper()
	n := dynamotest.NewNetwork(t)
	s := store.New(n.Client(t, attemptTimeout), dynamotest.Table(t), store.Options{CursorSecret: []byte("k")})
	return fixture{Store: s, t: t}, n
}

// Each outage, once the SDK has retried the call, is an error the caller
// can tell as unavailability (not throttling); the write it interrupted is
// either done or not, and a retry with the same idempotency key after the
// outage makes exactly one expense.
func TestOutageIsUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outage  dynamotest.Outage
		timeout time.Duration // of each try
		done    bool          // the write reached DynamoDB (and reads are answered)
	}{
		{name: "connection refused", outage: dynamotest.Refused},
		{name: "connection reset", outage: dynamotest.Reset},
		{name: "HTTP 500", outage: dynamotest.ServerError},
		{name: "no answer", outage: dynamotest.Hang, timeout: 200 * time.Millisecond},
		{name: "written, answer lost", outage: dynamotest.AnswerLost, done: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, n := outageFixture(t, tc.timeout)
			g := f.group("1")
			n.Set(tc.outage)

			_, err := f.GetGroups(ctx, []string{g.ID})
			if tc.done {
				require.NoError(t, err, "reads are answered")
			} else {
				require.True(t, store.IsUnavailable(err), "a read: %v", err)
			}
			_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "5.00", "1"), "key-1")
			require.True(t, store.IsUnavailable(err), "a write: %v", err)
			require.False(t, store.IsThrottled(err))
			require.Equal(t, tc.done, n.LostAnswers() > 0)

			n.Set(dynamotest.Up)
			page, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
			require.NoError(t, err)
			if !tc.done {
				require.Empty(t, page.Items, "nothing written")
			} else {
				require.Len(t, page.Items, 1, "written whole")
			}
			e, err := f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "5.00", "1"), "key-1")
			require.NoError(t, err)
			page, err = f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
			require.NoError(t, err)
			require.Len(t, page.Items, 1, "one expense however often it was sent")
			require.Equal(t, e.ID, page.Items[0].ID)
		})
	}
}

// A real outage drains the SDK's retry quota: calls failing together soon
// get no retry at all ("retry quota exceeded"), and that is unavailability
// too.
func TestRetryQuotaExhaustedIsUnavailable(t *testing.T) {
	f, n := outageFixture(t, 0)
	g := f.group("1")
	n.Set(dynamotest.Refused)
	// Each failing call asks for ThrottleAttempts-1 retries; the quota
	// holds a hundred.
	const calls = 20
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() { _, errs[i] = f.GetGroups(ctx, []string{g.ID}) })
	}
	wg.Wait()
	quotaExceeded := 0
	for _, err := range errs {
		require.True(t, store.IsUnavailable(err), "%v", err)
		if errors.As(err, new(ratelimit.QuotaExceededError)) {
			quotaExceeded++
		}
	}
	require.Positive(t, quotaExceeded, "some calls found the retry quota used up")
}

// Running out of time waiting for DynamoDB is unavailability; the caller
// going away is not.
func TestDeadlineIsUnavailableCancellationIsNot(t *testing.T) {
	// Hanging before the client's first call: it holds no connection from
	// before, whose close it could see as a broken pipe and fail at once.
	n := dynamotest.NewNetwork(t)
	n.Set(dynamotest.Hang)
	f := fixture{Store: store.New(n.Client(t, 0), dynamotest.Table(t), store.Options{CursorSecret: []byte("k")}), t: t}
	g := store.Group{ID: "00000000-0000-4000-8000-000000000001"} // never answered: it need not exist

	deadline, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err := f.GetGroups(deadline, []string{g.ID})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.True(t, store.IsUnavailable(err), "%v", err)

	gone, leave := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, leave) // while the call waits for an answer
	_, err = f.GetGroups(gone, []string{g.ID})
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, store.IsUnavailable(err), "%v", err)
}

func TestIsUnavailable(t *testing.T) {
	require.False(t, store.IsUnavailable(nil))
	require.False(t, store.IsUnavailable(errors.New("connection refused")), "only the network's own errors")
	require.False(t, store.IsUnavailable(conflict()))
	require.False(t, store.IsUnavailable(store.ErrNotFound))
}

func TestThrottledTransactionItem(t *testing.T) {
	require.True(t, store.IsThrottled(&types.TransactionCanceledException{
		CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ThrottlingError")}},
	}))
}
