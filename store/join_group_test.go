package store_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestJoinGroup(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")

	m, joined, err := f.JoinGroup(ctx, g.ID, user("2"))
	require.NoError(t, err)
	require.True(t, joined)
	require.Equal(t, "2", m.UserID)

	// Joining again is idempotent: same membership, count unchanged.
	again, joined, err := f.JoinGroup(ctx, g.ID, user("2"))
	require.NoError(t, err)
	require.False(t, joined)
	require.Equal(t, m, again)

	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.MemberCount)
}

func TestJoinMissingGroup(t *testing.T) {
	f := newFixture(t)
	_, _, err := f.JoinGroup(ctx, "no-such-group", user("2"))
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestJoinGroupConcurrently(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")

	// 20 different users join at once, and each of them twice.
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := f.JoinGroup(ctx, g.ID, user(fmt.Sprint(100+i)))
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 21, got.MemberCount)
	members := all(t, 100, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListMembers(ctx, g.ID, a) })
	require.Len(t, members, 21)
}
