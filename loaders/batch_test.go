package loaders_test

import (
	"context"
	"testing"
	"time"

	"github.com/fracti/api/internal/dynamotest"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A batch resolver's members: from the roster where one was started, by key
// in one batch elsewhere, in the keys' order, nil for nobody.
func TestMembersByKeyFromRostersAndByKeyInOneBatch(t *testing.T) {
	calls := &dynamotest.Counter{}
	s := dynamotest.Store(t, calls.Option())
	a, b := newGroup(t, s, "A"), newGroup(t, s, "B")
	for _, g := range []store.Group{a, b} {
		_, _, err := s.JoinGroup(context.Background(), g.ID, store.NewMember{UserID: "2", Name: "Two"})
		require.NoError(t, err)
	}
	ctx := loaders.With(context.Background(), loaders.New(s, 5*time.Millisecond))
	calls.Reset()
	loaders.PrefetchGroup(ctx, a.ID, false, true) // a's roster; none for b
	keys := []store.MemberKey{
		{GroupID: a.ID, UserID: "2"}, {GroupID: b.ID, UserID: "1"}, {GroupID: a.ID, UserID: "9"},
		{GroupID: b.ID, UserID: "9"}, {GroupID: a.ID, UserID: "1"}, {GroupID: b.ID, UserID: "2"},
	}
	ms, errs := loaders.MembersByKey(ctx, keys)
	require.Nil(t, errs)
	require.Len(t, ms, len(keys))
	for i, k := range keys {
		if k.UserID == "9" {
			require.Nil(t, ms[i], "nobody is nil, not an error")
			continue
		}
		require.Equal(t, k, ms[i].Key())
	}
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1}, calls.ByOperation(), "a's roster, then b's three keys in one batch")
}

// A failed read fails every key that waited on it, each with its error.
func TestMembersByKeyFailsEachKey(t *testing.T) {
	s := store.New(dynamotest.Client(t), "no-such-table", store.Options{})
	ctx := loaders.With(context.Background(), loaders.New(s, time.Millisecond))
	ms, errs := loaders.MembersByKey(ctx, []store.MemberKey{{GroupID: "g", UserID: "1"}, {GroupID: "g", UserID: "2"}})
	require.Len(t, ms, 2)
	require.Len(t, errs, 2)
	for i := range errs {
		require.Nil(t, ms[i])
		require.Error(t, errs[i])
	}
}
