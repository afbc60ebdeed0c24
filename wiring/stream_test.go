package wiring

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// quietBroker is a broker that takes everything and sends nothing.
type quietBroker struct{}

func (quietBroker) Publish(context.Context, []store.Event) error                        { return nil }
func (quietBroker) Receive(ctx context.Context, _ func(context.Context, []store.Event)) { <-ctx.Done() }
func (quietBroker) Err() error                                                          { return nil }
func (quietBroker) WatchAll()                                                           {}
func (quietBroker) WatchGroup(string)                                                   {}
func (quietBroker) UnwatchGroup(string)                                                 {}
func (quietBroker) WatchUser(string)                                                    {}
func (quietBroker) UnwatchUser(string)                                                  {}

// TestStartStreamReleasesItsLeasesOnShutdown: once the stream's context
// ends, waiting on startStream returns only after the readers released
// their leases, so a rolling deploy's next instance reads on at once.
func TestStartStreamReleasesItsLeasesOnShutdown(t *testing.T) {
	s := dynamotest.Store(t)
	c := config.Stream{Poll: 50 * time.Millisecond, LeaseTimeout: 3 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := s.EnableStream(ctx)
	require.NoError(t, err)
	wait, err := startStream(ctx, c, config.Store{Endpoint: dynamotest.Endpoint(t)}, s, slog.Default(), nil, nil, &live.Delivery{Broker: quietBroker{}})
	require.NoError(t, err)
	arn, err := s.StreamARN(ctx)
	require.NoError(t, err)
	set := store.LeaseSet(store.StreamLabel(arn), live.ConsumerPublisher)
	held := func() int {
		leases, err := s.ListLeases(context.Background(), set)
		require.NoError(t, err)
		n := 0
		for _, l := range leases {
			if l.Owner != "" {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return held() > 0 }, 30*time.Second, 10*time.Millisecond)
	cancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	wait(wctx)
	require.Zero(t, held(), "every lease released when wait returns")
}
