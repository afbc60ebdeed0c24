package graph

import (
	"context"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// defaultPageSize is used when a client passes first: null.
const defaultPageSize = 20

// listFunc reads a page of a list that a group or a user owns: one of the
// store's List methods.
type listFunc[T any] func(ctx context.Context, owner string, args store.PageArgs) (store.Page[T], error)

// listPage reads the page of owner's list that a connection's first and
// after ask for: the one its parent started reading (prefetchPage, under the
// list's name), or else now.
func listPage[T any](ctx context.Context, name string, list listFunc[T], owner string, first *int, after *string) (store.Page[T], error) {
	args := store.PageArgs{First: defaultPageSize}
	if first != nil {
		args.First = *first
	}
	if args.First < 0 || args.First > store.MaxPageSize {
		return store.Page[T]{}, badInput("first", "must be between 0 and %d, got %d", store.MaxPageSize, args.First)
	}
	if after != nil {
		args.After = *after
	}
	return loaders.Page(ctx, loaders.PageKey{List: name, Owner: owner, Args: args}, func(ctx context.Context) (store.Page[T], error) {
		return list(ctx, owner, args)
	})
}

// connectionOf has the shape of every generated connection whose nodes are
// the store's items (MemberConnection, ExpenseConnection, …): a pointer to
// one converts to a pointer to the other.
type connectionOf[E, T any] struct {
	Edges    []E
	Nodes    []T
	PageInfo *model.PageInfo
}

// listConnection reads a page of owner's list as a Relay connection: edges
// made by edge, the nodes, and page info. The edges point into the nodes,
// so each item exists once.
func listConnection[T, E any](ctx context.Context, name string, list listFunc[T], owner string, first *int, after *string, edge func(cursor store.Cursor, node *T) E) (*connectionOf[E, T], error) {
	p, err := listPage(ctx, name, list, owner, first, after)
	if err != nil {
		return nil, err
	}
	edges := make([]E, len(p.Items))
	for i := range p.Items {
		edges[i] = edge(p.Cursors[i], &p.Items[i])
	}
	return &connectionOf[E, T]{Edges: edges, Nodes: p.Items, PageInfo: pageInfo(p)}, nil
}

// pageInfo is a store page's Relay page info.
func pageInfo[T any](p store.Page[T]) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: p.HasNext, HasPreviousPage: p.HasPrevious}
	if n := len(p.Cursors); n > 0 {
		info.StartCursor, info.EndCursor = &p.Cursors[0], &p.Cursors[n-1]
	}
	return info
}

// The edges of the lists more than one field returns.

func expenseEdge(cursor store.Cursor, e *store.Expense) model.ExpenseEdge {
	return model.ExpenseEdge{Cursor: cursor, Node: e}
}

func settlementEdge(cursor store.Cursor, st *store.Settlement) model.SettlementEdge {
	return model.SettlementEdge{Cursor: cursor, Node: st}
}

// nullable maps Go's empty string to GraphQL's null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
