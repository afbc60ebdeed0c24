package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListComments(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e1 := f.expense(g, "1", "10.00", "1", "2")
	e2 := f.expense(g, "2", "20.00", "1", "2")
	var on1, on2 []store.Comment
	for i := range 5 {
		on1 = append(on1, f.comment(e1, "1", fmt.Sprintf("one %d", i)))
		on2 = append(on2, f.comment(e2, "2", fmt.Sprintf("two %d", i)))
	}

	// One expense's comments, oldest first, page by page.
	for _, n := range []int{1, 2, 5} {
		got := all(t, n, func(args store.PageArgs) (store.Page[store.Comment], error) {
			return f.ListComments(ctx, g.ID, e1.ID, args)
		})
		require.Equal(t, on1, got)
	}
	// The group's: by expense, then oldest first.
	want := append(append([]store.Comment{}, on1...), on2...)
	if e2.ID < e1.ID {
		want = append(append([]store.Comment{}, on2...), on1...)
	}
	got := all(t, 3, func(args store.PageArgs) (store.Page[store.Comment], error) {
		return f.ListGroupComments(ctx, g.ID, args)
	})
	require.Equal(t, want, got)

	// A cursor of one list is refused by another.
	p, err := f.ListComments(ctx, g.ID, e1.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	_, err = f.ListComments(ctx, g.ID, e2.ID, store.PageArgs{First: 1, After: p.Cursors[0].String()})
	require.ErrorIs(t, err, store.ErrBadCursor)
}

func TestCommentsOutliveTheirExpensesDeletion(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	c := f.comment(e, "2", "Thanks!")

	deleted, err := f.DeleteExpense(ctx, e, "1")
	require.NoError(t, err)
	_, err = f.AddComment(ctx, e.Ref(), store.Comment{AuthorID: "2", AuthorName: "User 2", Body: "again"})
	require.ErrorIs(t, err, store.ErrConflict, "a deleted expense takes no comments")
	restored, err := f.RestoreExpense(ctx, deleted, g.Title, "1")
	require.NoError(t, err)

	page, err := f.ListComments(ctx, g.ID, e.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Equal(t, []store.Comment{c}, page.Items)
	f.comment(restored, "2", "again")
}
