package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// Subscriptions to one group that start together share their membership
// reads: one read, then one for every check that arrived during it, and
// each subscriber is still admitted or refused by its own membership.
func TestSubscriptionsStartingTogetherShareTheirMembershipRead(t *testing.T) {
	calls := &dynamotest.Counter{}
	s, slow := storesWithLatency(t, 300*time.Millisecond, calls.Option())
	ctx := context.Background()
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: money.MustCurrency("EUR"),
		Creator: store.NewMember{UserID: "5100000000", Name: "Ann"}})
	require.NoError(t, err)
	const members, strangers = 30, 10
	for i := 1; i < members; i++ {
		_, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: fmt.Sprint(5100000000 + i), Name: "M"})
		require.NoError(t, err)
	}
	hub := NewHub(slow, 0, nil)
	calls.Reset()

	var wg sync.WaitGroup
	results := make([]error, members+strangers)
	for i := range members + strangers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub, err := hub.SubscribeGroup(ctx, fmt.Sprint(5100000000+i), g.ID)
			if err == nil {
				defer sub.Close()
			}
			results[i] = err
		}()
	}
	wg.Wait()
	for i, err := range results {
		if i < members {
			require.NoError(t, err, "member %d", i)
		} else {
			require.True(t, errors.Is(err, ErrNotMember), "stranger %d: %v", i, err)
		}
	}
	reads := calls.ByOperation()["BatchGetItem"]
	t.Logf("%d subscriptions started together: %d membership reads", members+strangers, reads)
	require.LessOrEqual(t, reads, 3, "the checks share their reads")
	require.Positive(t, reads)

	// Once the reads are over, a new subscriber reads at once and alone.
	calls.Reset()
	sub, err := hub.SubscribeGroup(ctx, "5100000001", g.ID)
	require.NoError(t, err)
	sub.Close()
	require.Equal(t, 1, calls.ByOperation()["BatchGetItem"])
}

// A subscriber that gives up waiting for a shared read gets its context's
// error; the others still get their answer.
func TestASubscriberGivingUpLeavesTheSharedReadToTheOthers(t *testing.T) {
	s, slow := storesWithLatency(t, 200*time.Millisecond)
	ctx := context.Background()
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: money.MustCurrency("EUR"),
		Creator: store.NewMember{UserID: "5200000000", Name: "Ann"}})
	require.NoError(t, err)
	hub := NewHub(slow, 0, nil)
	impatient, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	var patientErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		sub, err := hub.SubscribeGroup(ctx, "5200000000", g.ID)
		if err == nil {
			sub.Close()
		}
		patientErr = err
	}()
	_, err = hub.SubscribeGroup(impatient, "5200000000", g.ID)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	wg.Wait()
	require.NoError(t, patientErr)
}

// storesWithLatency returns two stores on one fresh table: one that answers
// at DynamoDB Local's speed, to set things up, and one whose every call
// takes d longer, so that checks starting together overlap its reads.
func storesWithLatency(t *testing.T, d time.Duration, opts ...func(*dynamodb.Options)) (fast, slow *store.Store) {
	table := dynamotest.Table(t)
	o := store.Options{CursorSecret: []byte("test-secret")}
	return store.New(dynamotest.Client(t), table, o),
		store.New(dynamotest.Client(t, append(opts, dynamotest.Latency(d))...), table, o)
}
