package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListMembers(t *testing.T) {
	f := newFixture(t)
	users := []string{"10", "11", "12", "13", "14", "15", "16"}
	g := f.group(users...)
	f.group("99") // another group's members stay out

	for _, n := range []int{1, 2, 3, 7, 8} {
		t.Run(fmt.Sprint("pages of ", n), func(t *testing.T) {
			got := all(t, n, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListMembers(ctx, g.ID, a) })
			ids := make([]string, len(got))
			for i, m := range got {
				ids[i] = m.UserID
			}
			require.Equal(t, users, ids)
		})
	}
}
