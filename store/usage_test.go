package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestUsageCounters(t *testing.T) {
	f := newFixture(t)
	got, err := f.GetUsage(ctx, "1", "2026-11-23")
	require.NoError(t, err)
	require.Equal(t, store.Usage{Day: "2026-11-23"}, got, "nothing counted yet")

	// Concurrent adds from several instances all count.
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.AddUsage(ctx, "1", "2026-11-23", 3, 1)
			require.NoError(t, err)
		}()
	}
	wg.Wait()
	total, err := f.AddUsage(ctx, "1", "2026-11-23", 0, 2)
	require.NoError(t, err)
	require.Equal(t, store.Usage{Day: "2026-11-23", Reads: 30, Writes: 12}, total)
	got, err = f.GetUsage(ctx, "1", "2026-11-23")
	require.NoError(t, err)
	require.Equal(t, total, got)

	// Another day, another user: counted apart.
	other, err := f.AddUsage(ctx, "1", "2026-11-24", 1, 0)
	require.NoError(t, err)
	require.Equal(t, int64(1), other.Reads)
	got, err = f.GetUsage(ctx, "2", "2026-11-23")
	require.NoError(t, err)
	require.Zero(t, got.Reads)

	_, err = f.AddUsage(ctx, "1", "yesterday", 1, 0)
	require.Error(t, err)
}
