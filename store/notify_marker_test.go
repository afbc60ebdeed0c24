package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// Two instances claiming overlapping events for one chat: each event goes
// to exactly one of them, and a claim made again (a restart) gets nothing.
func TestClaimNotificationsOnce(t *testing.T) {
	table := dynamotest.Table(t)
	a := store.New(dynamotest.Client(t), table, store.Options{})
	b := store.New(dynamotest.Client(t), table, store.Options{})
	var (
		wg   sync.WaitGroup
		got  [2][]int64
		errs [2]error
		asks = [2][]int64{{1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}}
	)
	for i, s := range []*store.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.ClaimNotifications(ctx, "g1", asks[i], "-100123")
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.ElementsMatch(t, []int64{1, 2, 3, 4, 5, 6, 7}, append(append([]int64{}, got[0]...), got[1]...), "each event claimed exactly once")

	again, err := a.ClaimNotifications(ctx, "g1", []int64{1, 7}, "-100123")
	require.NoError(t, err)
	require.Empty(t, again)
	other, err := a.ClaimNotifications(ctx, "g1", []int64{1, 7}, "dm:5")
	require.NoError(t, err)
	require.Equal(t, []int64{1, 7}, other, "another destination has markers of its own")
}
