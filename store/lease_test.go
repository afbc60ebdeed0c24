package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestLeaseLifecycle: a lease is created once, taken by one of two
// instances racing on the same read, renewed only by its holder, taken
// over when its holder stops renewing, checkpointed only by its holder, and
// released for anyone to take.
func TestLeaseLifecycle(t *testing.T) {
	f := newFixture(t)
	const stream = "2026-11-25T00:00:00.000"
	require.NoError(t, f.CreateLease(ctx, stream, "shard-1", ""))
	require.NoError(t, f.CreateLease(ctx, stream, "shard-2", "shard-1"))
	require.NoError(t, f.CreateLease(ctx, stream, "shard-1", ""), "a second create is not an error")
	leases, err := f.ListLeases(ctx, stream)
	require.NoError(t, err)
	require.Len(t, leases, 2)
	require.False(t, leases[0].Created.IsZero(), "a lease records when it was created")
	created := leases[0].Created
	leases[0].Created = time.Time{}
	require.Equal(t, store.Lease{Stream: stream, Shard: "shard-1"}, leases[0])
	leases[0].Created = created
	require.Equal(t, "shard-1", leases[1].Parent)

	// Two instances read the free lease; the first to write wins.
	a, err := f.TakeLease(ctx, leases[0], "a")
	require.NoError(t, err)
	require.Equal(t, "a", a.Owner)
	require.EqualValues(t, 1, a.Counter)
	require.False(t, a.Heartbeat.IsZero())
	_, err = f.TakeLease(ctx, leases[0], "b")
	require.ErrorIs(t, err, store.ErrLeaseLost)

	a, err = f.RenewLease(ctx, a)
	require.NoError(t, err)
	require.EqualValues(t, 2, a.Counter)
	require.NoError(t, f.CheckpointLease(ctx, a, "100", false))

	// b saw counter 2 stand still: it takes the lease over, from the checkpoint.
	leases, err = f.ListLeases(ctx, stream)
	require.NoError(t, err)
	require.Equal(t, "100", leases[0].Checkpoint)
	b, err := f.TakeLease(ctx, leases[0], "b")
	require.NoError(t, err)
	require.Equal(t, "b", b.Owner)
	_, err = f.RenewLease(ctx, a)
	require.ErrorIs(t, err, store.ErrLeaseLost, "a lost it")
	require.ErrorIs(t, f.CheckpointLease(ctx, a, "200", false), store.ErrLeaseLost, "nor may a checkpoint")

	require.NoError(t, f.CheckpointLease(ctx, b, "300", true))
	b, err = f.ReleaseLease(ctx, b)
	require.NoError(t, err)
	require.Equal(t, "", b.Owner)
	require.True(t, b.Finished)
	require.Equal(t, "300", b.Checkpoint)
	_, err = f.TakeLease(ctx, b, "c")
	require.NoError(t, err, "a released lease is free at once")
}

func TestStreamLabel(t *testing.T) {
	require.Equal(t, "2026-11-25T10:00:00.123", store.StreamLabel("arn:aws:dynamodb:ddblocal:000000000000:table/T/stream/2026-11-25T10:00:00.123"))
}

// TestDeleteLease: a lease is deleted only as it was read.
func TestDeleteLease(t *testing.T) {
	f := newFixture(t)
	const stream = "2026-11-25T00:00:00.000"
	require.NoError(t, f.CreateLease(ctx, stream, "old", ""))
	leases, err := f.ListLeases(ctx, stream)
	require.NoError(t, err)
	taken, err := f.TakeLease(ctx, leases[0], "a")
	require.NoError(t, err)
	require.ErrorIs(t, f.DeleteLease(ctx, leases[0]), store.ErrLeaseLost, "it changed since")
	require.NoError(t, f.DeleteLease(ctx, taken))
	leases, err = f.ListLeases(ctx, stream)
	require.NoError(t, err)
	require.Empty(t, leases)
}
