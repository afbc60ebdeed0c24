package store

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/stretchr/testify/require"
)

// A comment's item keeps its keys flat (with GSI2 for the lookup by id,
// nothing else), reads back as it was written, and a tombstone never shows
// its body, whatever the item still holds.
func TestCommentRecord(t *testing.T) {
	at := time.Date(2024, 1, 20, 18, 30, 0, 123e6, time.UTC)
	c := Comment{ID: "cmt_1", GroupID: "g1", ExpenseID: "e1", AuthorID: "7", AuthorName: "Ann", Body: "hi", CreatedAt: at}
	rec := c.record()
	item, err := attributevalue.MarshalMap(rec)
	require.NoError(t, err)
	require.Equal(t, "GROUP#g1", keyAttr(item, attrPK))
	require.Equal(t, "COMMENT#e1#2024-01-20T18:30:00.123Z#cmt_1", keyAttr(item, attrSK))
	require.Equal(t, "COMMENT#cmt_1", keyAttr(item, attrGSI2PK))
	require.Equal(t, "g1", keyAttr(item, attrGSI2SK))
	for _, a := range []string{attrGSI1PK, attrGSI1SK, attrGSI3PK, attrGSI3SK, attrCommentDeletedAt, attrCommentDeletedBy} {
		require.NotContains(t, item, a)
	}
	var back commentRecord
	require.NoError(t, attributevalue.UnmarshalMap(item, &back))
	got, err := back.comment()
	require.NoError(t, err)
	require.Equal(t, c, got)
	require.Equal(t, "hi", *got.BodyOrNil())

	c.DeletedAt, c.DeletedBy = &at, "7"
	rec = c.record() // a body left behind is not shown
	tomb, err := rec.comment()
	require.NoError(t, err)
	require.Empty(t, tomb.Body)
	require.Nil(t, tomb.BodyOrNil())
	require.Equal(t, "7", tomb.DeletedBy)

	// An expense's prefix is no other expense's.
	require.False(t, strings.HasPrefix(commentSK("e10", formatTime(at), "x"), expenseCommentsPrefix("e1")))
	require.True(t, strings.HasPrefix(commentSK("e1", formatTime(at), "x"), expenseCommentsPrefix("e1")))
}
