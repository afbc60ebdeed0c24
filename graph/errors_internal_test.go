package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The store's outcome errors reach a client with their codes, however
// deeply they are wrapped; anything else is an internal error that tells
// nothing.
func TestErrorPresenterCodesStoreErrors(t *testing.T) {
	present := ErrorPresenter(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tc := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("create: %w: 120 items, the limit is 100", store.ErrTooManyItems), CodeBadUserInput},
		{fmt.Errorf("list: %w", store.ErrBadCursor), CodeBadUserInput},
		{fmt.Errorf("get: %w", store.ErrNotFound), CodeNotFound},
		{fmt.Errorf("put: %w", store.ErrConflict), CodeConflict},
		{errors.New("dynamodb: connection reset"), CodeInternal},
	} {
		got := present(context.Background(), tc.err)
		require.Equal(t, tc.code, got.Extensions["code"], tc.err.Error())
		if tc.code == CodeInternal {
			require.Equal(t, internalMessage, got.Message)
		}
	}
	require.Contains(t, present(context.Background(), fmt.Errorf("%w: 120 items, the limit is 100", store.ErrTooManyItems)).Message, "the limit is 100")
}

// A subscription this instance cannot serve right now (it is not reading
// the table's stream) says when to try again, like any UNAVAILABLE.
func TestSubscriptionUnavailableSaysWhenToRetry(t *testing.T) {
	r := &Resolver{Live: &live.Hub{}}
	_, err := r.subscribe(context.Background(), func(*live.Hub, string) (*live.Subscription, error) {
		return nil, fmt.Errorf("%w: the stream could not be read", live.ErrUnavailable)
	})
	var gqlErr *gqlerror.Error
	require.ErrorAs(t, err, &gqlErr)
	require.Equal(t, CodeUnavailable, gqlErr.Extensions["code"])
	require.Equal(t, unreachableRetryAfter, gqlErr.Extensions["retryAfter"])
}
