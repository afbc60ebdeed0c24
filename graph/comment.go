package graph

import (
	"context"
	"regexp"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// maxCommentLength bounds a comment's body in characters (code points), as
// the schema's description of addComment states.
const maxCommentLength = 1000

// commentIDPattern is a Comment's id: store.CommentPrefix and 32 hex digits.
var commentIDPattern = regexp.MustCompile(`^` + store.CommentPrefix + `[0-9a-f]{32}$`)

// visibleComment is the comment with this id if the viewer is a member of
// its group, else nil: a comment of another group answers as one that does
// not exist.
func visibleComment(ctx context.Context, id string) (*store.Comment, error) {
	if !commentIDPattern.MatchString(id) {
		return nil, nil
	}
	c, err := loaders.Comment(ctx, store.CommentRef{ID: id})
	if err != nil || c == nil {
		return nil, err
	}
	if ok, err := isMember(ctx, c.GroupID); err != nil || !ok {
		return nil, err
	}
	return c, nil
}

// commentEdge is a comment in a connection.
func commentEdge(cursor store.Cursor, c *store.Comment) model.CommentEdge {
	return model.CommentEdge{Cursor: cursor, Node: c}
}
