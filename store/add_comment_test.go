package store_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// comment adds a comment by author on e.
func (f fixture) comment(e store.Expense, author, body string) store.Comment {
	f.t.Helper()
	c, err := f.AddComment(ctx, e.Ref(), store.Comment{AuthorID: author, AuthorName: "User " + author, Body: body})
	require.NoError(f.t, err)
	return c
}

func TestAddComment(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")

	c := f.comment(e, "2", "Was the tip included?")
	require.True(t, strings.HasPrefix(c.ID, store.CommentPrefix))
	require.Len(t, c.ID, len(store.CommentPrefix)+32)
	require.Equal(t, g.ID, c.GroupID)
	require.Equal(t, e.ID, c.ExpenseID)
	require.Nil(t, c.DeletedAt)

	// The item, with the keys the data model gives it.
	out, err := dynamotestClient(t).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.Table()), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID},
		"SK": &types.AttributeValueMemberS{Value: "COMMENT#" + e.ID + "#" + c.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z") + "#" + c.ID},
	}})
	require.NoError(t, err)
	require.NotNil(t, out.Item)
	require.Equal(t, &types.AttributeValueMemberS{Value: "COMMENT#" + c.ID}, out.Item["GSI2PK"])
	require.Equal(t, &types.AttributeValueMemberS{Value: g.ID}, out.Item["GSI2SK"])
	require.Equal(t, &types.AttributeValueMemberS{Value: "Was the tip included?"}, out.Item["body"])
	require.Equal(t, &types.AttributeValueMemberS{Value: "User 2"}, out.Item["authorName"])

	// Its event joined the activity chain, which still verifies.
	events, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	ev := events.Items[0]
	require.Equal(t, store.EventCommentAdded, ev.Type)
	require.Equal(t, "2", ev.ActorID)
	require.Empty(t, ev.Changes, "the body is not copied into the log")
	ref, ok := ev.CommentRef()
	require.True(t, ok)
	require.Equal(t, c.Ref(), ref, "by key: found the moment it is written")
	old := ev
	old.Subject.ExpenseID = "" // an event written before events carried the expense
	ref, ok = old.CommentRef()
	require.True(t, ok)
	require.Equal(t, store.CommentRef{ID: c.ID, GroupID: g.ID}, ref, "by id, through GSI2")
	found, err := f.GetComments(ctx, []store.CommentRef{ref})
	require.NoError(t, err)
	require.Equal(t, c.ID, found[0].ID)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
}

func TestAddCommentRefused(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "10.00", "1", "2")
	_, err := f.LeaveGroup(ctx, g.ID, "3", "")
	require.NoError(t, err)
	deleted := f.expense(g, "1", "5.00", "1", "2")
	_, err = f.DeleteExpense(ctx, deleted, "1")
	require.NoError(t, err)
	before := f.eventCount(g.ID)

	for _, tc := range []struct {
		name    string
		expense store.ExpenseRef
		author  string
		want    error
	}{
		{"a member who left", e.Ref(), "3", store.ErrNotFound},
		{"someone never in the group", e.Ref(), "9", store.ErrNotFound},
		{"a deleted expense", deleted.Ref(), "1", store.ErrConflict},
		{"an expense that never was", store.ExpenseRef{ID: "00000000-0000-0000-0000-000000000000", GroupID: g.ID, CreatedAt: e.CreatedAt}, "1", store.ErrConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.AddComment(ctx, tc.expense, store.Comment{AuthorID: tc.author, AuthorName: "X", Body: "hi"})
			require.ErrorIs(t, err, tc.want)
		})
	}
	// Nothing was written.
	all, err := f.ListGroupComments(ctx, g.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Empty(t, all.Items)
	require.Equal(t, before, f.eventCount(g.ID))
}

// eventCount is the number of the group's newest event.
func (f fixture) eventCount(groupID string) int64 {
	f.t.Helper()
	p, err := f.ListEvents(ctx, groupID, store.PageArgs{First: 1})
	require.NoError(f.t, err)
	return p.Items[0].Seq
}

func TestAddCommentOnce(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	other := f.expense(g, "1", "5.00", "1", "2")
	add := func(e store.Expense, author, body, key string) (store.Comment, error) {
		return f.AddCommentOnce(ctx, e.Ref(), store.Comment{AuthorID: author, AuthorName: "User " + author, Body: body}, key)
	}

	first, err := add(e, "2", "Was the tip included?", "k1")
	require.NoError(t, err)
	events := f.eventCount(g.ID)
	// A retry returns the first comment and writes nothing.
	again, err := add(e, "2", "Was the tip included?", "k1")
	require.NoError(t, err)
	require.Equal(t, first, again)
	require.Equal(t, events, f.eventCount(g.ID))

	// The key for anything else is a conflict; another user's key is theirs.
	for name, retry := range map[string]func() (store.Comment, error){
		"another body":    func() (store.Comment, error) { return add(e, "2", "Was the tax included?", "k1") },
		"another expense": func() (store.Comment, error) { return add(other, "2", "Was the tip included?", "k1") },
	} {
		_, err := retry()
		require.ErrorIs(t, err, store.ErrConflict, name)
	}
	require.Equal(t, events, f.eventCount(g.ID))
	theirs, err := add(e, "1", "Was the tip included?", "k1")
	require.NoError(t, err)
	require.NotEqual(t, first.ID, theirs.ID)

	all, err := f.ListComments(ctx, g.ID, e.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, all.Items, 2)
}
