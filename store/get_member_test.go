package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestGetMembersAcrossBatches(t *testing.T) {
	f := newFixture(t)
	users := make([]string, 120)
	for i := range users {
		users[i] = fmt.Sprint(1000 + i)
	}
	g := f.group(users...)
	other := f.group("1")

	// More keys than one BatchGetItem takes, with duplicates, misses and two groups.
	var keys []store.MemberKey
	for _, u := range users {
		keys = append(keys, store.MemberKey{GroupID: g.ID, UserID: u})
	}
	keys = append(keys, store.MemberKey{GroupID: g.ID, UserID: "1"}, store.MemberKey{GroupID: other.ID, UserID: "1"}, keys[0])
	got, err := f.GetMembers(ctx, keys)
	require.NoError(t, err)
	require.Len(t, got, len(keys))
	for i, k := range keys {
		if i == len(users) {
			require.Nil(t, got[i], "user 1 is not in the first group")
			continue
		}
		require.NotNil(t, got[i], k)
		require.Equal(t, k, got[i].Key())
	}
}
