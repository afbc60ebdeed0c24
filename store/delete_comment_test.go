package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestDeleteComment(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "10.00", "1", "2")
	c := f.comment(e, "2", "Was the tip included?")

	// Only its author deletes it.
	_, err := f.DeleteComment(ctx, c, "1")
	require.ErrorIs(t, err, store.ErrNotAuthor)
	before := f.eventCount(g.ID)

	tomb, err := f.DeleteComment(ctx, c, "2")
	require.NoError(t, err)
	require.Empty(t, tomb.Body)
	require.NotNil(t, tomb.DeletedAt)
	require.Equal(t, "2", tomb.DeletedBy)
	require.Equal(t, before+1, f.eventCount(g.ID))

	// The tombstone stays, without its text, in the list and by id.
	got, err := f.CurrentComment(ctx, c.Ref())
	require.NoError(t, err)
	require.Equal(t, &tomb, got)
	page, err := f.ListComments(ctx, g.ID, e.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Equal(t, []store.Comment{tomb}, page.Items)

	events, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	require.Equal(t, store.EventCommentDeleted, events.Items[0].Type)
	require.Equal(t, store.Subject{Kind: store.SubjectComment, ID: c.ID, CreatedAt: c.CreatedAt, ExpenseID: e.ID}, events.Items[0].Subject)

	// Deleting twice is refused and writes nothing.
	_, err = f.DeleteComment(ctx, c, "2")
	require.ErrorIs(t, err, store.ErrConflict)
	require.Equal(t, before+1, f.eventCount(g.ID))
}

func TestDeleteCommentRefused(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "10.00", "1", "2")
	c := f.comment(e, "3", "I was not there")
	_, err := f.LeaveGroup(ctx, g.ID, "3", "")
	require.NoError(t, err)
	before := f.eventCount(g.ID)

	// Its author left: they can no longer delete it.
	_, err = f.DeleteComment(ctx, c, "3")
	require.ErrorIs(t, err, store.ErrNotFound)
	// A comment that does not exist.
	missing := c
	missing.ID = store.CommentPrefix + "00000000000000000000000000000000"
	_, err = f.DeleteComment(ctx, missing, "1")
	require.ErrorIs(t, err, store.ErrNotFound)

	require.Equal(t, before, f.eventCount(g.ID))
	got, err := f.CurrentComment(ctx, c.Ref())
	require.NoError(t, err)
	require.Equal(t, "I was not there", got.Body)
}
