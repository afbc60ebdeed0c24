package graph

import (
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/store"
)

// defaultPageSize is used when a client passes first: null.
const defaultPageSize = 20

// pageArgs checks a connection's arguments.
func pageArgs(first *int, after *string) (store.PageArgs, error) {
	args := store.PageArgs{First: defaultPageSize}
	if first != nil {
		args.First = *first
	}
	if args.First < 0 || args.First > store.MaxPageSize {
		return store.PageArgs{}, badInput("first", "must be between 0 and %d, got %d", store.MaxPageSize, args.First)
	}
	if after != nil {
		args.After = *after
	}
	return args, nil
}

// connection turns a store page into Relay edges, nodes and page info. The
// edges point into nodes, so each item exists once.
func connection[T any, E any](p store.Page[T], edge func(cursor string, node *T) E) ([]E, []T, *model.PageInfo) {
	edges := make([]E, len(p.Items))
	for i := range p.Items {
		edges[i] = edge(p.Cursors[i], &p.Items[i])
	}
	return edges, p.Items, pageInfo(p)
}

// pageInfo is a store page's Relay page info.
func pageInfo[T any](p store.Page[T]) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: p.HasNext, HasPreviousPage: p.HasPrevious}
	if n := len(p.Cursors); n > 0 {
		info.StartCursor, info.EndCursor = &p.Cursors[0], &p.Cursors[n-1]
	}
	return info
}

// nullable maps Go's empty string to GraphQL's null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
