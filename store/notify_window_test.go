package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A window's life: three instances joining at once make one window with
// one owner and every event; a close with a stale read is refused; the
// owner's close claims the markers; the next event opens a new window; an
// owner whose lease ended is taken over with the window's events, and its
// own late close is refused.
func TestBatchWindow(t *testing.T) {
	table := dynamotest.Table(t)
	stores := []*store.Store{
		store.New(dynamotest.Client(t), table, store.Options{}),
		store.New(dynamotest.Client(t), table, store.Options{}),
		store.New(dynamotest.Client(t), table, store.Options{}),
	}
	owners := []string{"a", "b", "c"}
	now := time.Now()
	const lease = time.Minute

	_, found, err := stores[0].Window(ctx, "g1", "chat")
	require.NoError(t, err)
	require.False(t, found)

	var (
		wg   sync.WaitGroup
		got  [3]store.BatchWindow
		errs [3]error
	)
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.JoinWindow(ctx, "g1", "chat", owners[i], []int64{int64(i + 1), 10}, now, lease)
		}()
	}
	wg.Wait()
	for i := range stores {
		require.NoError(t, errs[i])
		require.Equal(t, got[0].ID, got[i].ID, "one window")
		require.Equal(t, got[0].Owner, got[i].Owner, "one owner")
	}
	w, found, err := stores[0].Window(ctx, "g1", "chat")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []int64{1, 2, 3, 10}, w.Seqs)
	require.Equal(t, now.Add(lease).UTC().Truncate(time.Millisecond), w.LeaseUntil)
	owner := w.Owner
	other := "a"
	if owner == "a" {
		other = "b"
	}

	stale := w
	stale.Seqs = w.Seqs[:3] // read before the last event joined
	_, err = stores[0].CloseWindow(ctx, "g1", "chat", owner, stale, []int64{1}, now)
	require.ErrorIs(t, err, store.ErrWindowChanged)
	_, err = stores[0].CloseWindow(ctx, "g1", "chat", other, w, []int64{1}, now)
	require.ErrorIs(t, err, store.ErrWindowChanged, "only the owner closes")
	markers, err := stores[0].ClaimNotifications(ctx, "g1", []int64{3}, "chat") // sent before (a restart)
	require.NoError(t, err)
	require.Equal(t, []int64{3}, markers)

	claimed, err := stores[0].CloseWindow(ctx, "g1", "chat", owner, w, []int64{1, 2, 3}, now)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, claimed, "3's marker was there")
	closed, _, err := stores[0].Window(ctx, "g1", "chat")
	require.NoError(t, err)
	require.True(t, closed.Closed)
	require.Empty(t, closed.Seqs)
	again, err := stores[0].ClaimNotifications(ctx, "g1", []int64{1, 2}, "chat")
	require.NoError(t, err)
	require.Empty(t, again, "the close wrote the markers")

	// The next event opens a new window; its owner dies, and after its
	// lease another instance's event takes it over with what it held.
	next, err := stores[1].JoinWindow(ctx, "g1", "chat", "b", []int64{11}, now, lease)
	require.NoError(t, err)
	require.Equal(t, "b", next.Owner)
	require.NotEqual(t, w.ID, next.ID)
	require.Equal(t, []int64{11}, next.Seqs)
	took, err := stores[2].TakeOverWindow(ctx, "g1", "chat", "c", next, now.Add(lease/2), lease)
	require.NoError(t, err)
	require.False(t, took, "not while the lease runs")
	later := now.Add(lease + time.Second)
	over, err := stores[2].JoinWindow(ctx, "g1", "chat", "c", []int64{12}, later, lease)
	require.NoError(t, err)
	require.Equal(t, next.ID, over.ID, "the same window")
	require.Equal(t, "c", over.Owner)
	require.Equal(t, next.Opened, over.Opened)
	require.Equal(t, []int64{11, 12}, over.Seqs)
	_, err = stores[1].CloseWindow(ctx, "g1", "chat", "b", over, []int64{11, 12}, later)
	require.ErrorIs(t, err, store.ErrWindowChanged, "the late former owner sends nothing")

	// A window released by its owner (a clean stop) is free at once.
	require.NoError(t, stores[2].ReleaseWindow(ctx, "g1", "chat", "c", over, later))
	took, err = stores[0].TakeOverWindow(ctx, "g1", "chat", "a", over, later, lease)
	require.NoError(t, err)
	require.True(t, took)
	claimed, err = stores[0].CloseWindow(ctx, "g1", "chat", "a", over, nil, later)
	require.NoError(t, err)
	require.Empty(t, claimed, "a window with nothing to say closes alone")
}
