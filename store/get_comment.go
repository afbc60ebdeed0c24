package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetComment reads a comment by id through GSI2, or nil when there is none.
// The index may lag a write by a moment; writes start from CurrentComment.
func (s *Store) GetComment(ctx context.Context, commentID string) (*Comment, error) {
	found, err := s.GetComments(ctx, []CommentRef{{ID: commentID}})
	if err != nil {
		return nil, err
	}
	return found[0], nil
}

// GetComments reads many comments, aligned with refs (nil where missing):
// refs that carry the whole key in BatchGetItem calls, the rest by id
// through GSI2 (an activity event's subject).
func (s *Store) GetComments(ctx context.Context, refs []CommentRef) ([]*Comment, error) {
	items, err := s.getByRefs(ctx, len(refs), func(i int) (string, map[string]types.AttributeValue) {
		r := refs[i]
		if !r.byKey() {
			return commentGSI2PK(r.ID), nil
		}
		return "", tableKey(groupPK(r.GroupID), r.sk())
	})
	if err != nil {
		return nil, err
	}
	return alignByID(items, refs, func(r CommentRef) string { return r.ID }, (*commentRecord).comment, func(c *Comment) string { return c.ID })
}

// CurrentComment reads the comment at ref (its whole key) strongly
// consistent, or nil.
func (s *Store) CurrentComment(ctx context.Context, ref CommentRef) (*Comment, error) {
	item, ok, err := s.getItem(ctx, groupPK(ref.GroupID), ref.sk(), true)
	if err != nil || !ok {
		return nil, err
	}
	out, err := decodeAll([]map[string]types.AttributeValue{item}, (*commentRecord).comment)
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}
