package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestGetComments(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	a := f.comment(e, "1", "first")
	b := f.comment(e, "2", "second")

	got, err := f.GetComment(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, &b, got)
	got, err = f.GetComment(ctx, store.CommentPrefix+"00000000000000000000000000000000")
	require.NoError(t, err)
	require.Nil(t, got)

	// By key and by id in one call, aligned with the refs.
	many, err := f.GetComments(ctx, []store.CommentRef{b.Ref(), {ID: a.ID}, {ID: "cmt_missing"}})
	require.NoError(t, err)
	require.Equal(t, []*store.Comment{&b, &a, nil}, many)
}
