package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListMembershipsHoldsFormerMembersAndPlaceholders(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	_, err := f.LeaveGroup(ctx, g.ID, "3", "")
	require.NoError(t, err)
	ph, err := f.AddPlaceholder(ctx, g.ID, "Grandma", "1")
	require.NoError(t, err)
	f.group("1", "4") // another group's members stay out

	for _, n := range []int{1, 2, 100} {
		t.Run(fmt.Sprint("pages of ", n), func(t *testing.T) {
			got := all(t, n, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListMemberships(ctx, g.ID, a) })
			ids := make([]string, len(got))
			for i, m := range got {
				ids[i] = m.UserID
			}
			require.ElementsMatch(t, []string{"1", "2", "3", ph.UserID}, ids)
			for _, m := range got {
				require.Equal(t, m.UserID == "3", m.LeftAt != nil, m.UserID)
				require.Equal(t, m.UserID == ph.UserID, m.Placeholder, m.UserID)
			}
		})
	}
	current, err := f.ListMembers(ctx, g.ID, store.PageArgs{First: 100})
	require.NoError(t, err)
	require.Len(t, current.Items, 3, "ListMembers still leaves the former member out")
}
