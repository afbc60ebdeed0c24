package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListUserGroups(t *testing.T) {
	f := newFixture(t)
	a := f.group("1", "2")
	b := f.group("2")
	f.group("1")

	got := all(t, 1, func(p store.PageArgs) (store.Page[store.Member], error) { return f.ListUserGroups(ctx, "2", p) }) // access pattern 9
	var ids []string
	for _, m := range got {
		require.Equal(t, "2", m.UserID)
		ids = append(ids, m.GroupID)
	}
	require.ElementsMatch(t, []string{a.ID, b.ID}, ids)
}
