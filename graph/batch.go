package graph

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// memberRefs is a batch resolver's answer for a member reference (a payer,
// a split's or a balance's member, a debt's ends) on every parent of a
// list at once: one wait on the member loader instead of a goroutine per
// parent, and what member answers for each, down to the error of a parent
// whose member could not be read (graphql.BatchErrorList: that parent's
// field alone is null with its error).
func memberRefs[P any](ctx context.Context, parents []*P, ref func(*P) (groupID, userID string)) ([]*store.Member, error) {
	keys := make([]store.MemberKey, len(parents))
	for i, p := range parents {
		keys[i].GroupID, keys[i].UserID = ref(p)
	}
	if !selectsBeyond(ctx, "__typename", "id", "userId") {
		out := make([]*store.Member, len(keys))
		for i, k := range keys {
			out[i] = &store.Member{GroupID: k.GroupID, UserID: k.UserID}
		}
		return out, nil
	}
	ms, errs := loaders.MembersByKey(ctx, keys)
	for i, m := range ms {
		if m == nil && (errs == nil || errs[i] == nil) {
			if errs == nil {
				errs = make([]error, len(ms))
			}
			errs[i] = missingMember(keys[i].GroupID, keys[i].UserID)
		}
	}
	if errs == nil {
		return ms, nil
	}
	for i, err := range errs {
		if err != nil {
			errs[i] = located(ctx, err)
		}
	}
	return ms, graphql.BatchErrorList(errs)
}

// located is a batch resolver's error for one parent as gqlgen reports a
// resolver's error: with the field's place in the query. gqlgen adds each
// parent's path to a batch error but, unlike a resolver's, not its
// location (the field's place is the same for every parent).
func located(ctx context.Context, err error) error {
	var loc []gqlerror.Location
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Position != nil && fc.Field.Position.Line != 0 {
		loc = []gqlerror.Location{{Line: fc.Field.Position.Line, Column: fc.Field.Position.Column}}
	}
	if g, ok := errors.AsType[*gqlerror.Error](err); ok {
		c := *g
		if c.Locations == nil {
			c.Locations = loc
		}
		return &c
	}
	e := gqlerror.WrapPath(nil, err)
	e.Locations = loc
	return e
}
