package graph

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/ast"
)

// Request-shaped reads: a resolver looks at the fields selected under it and
// starts the reads they will make, so that those run alongside its own
// instead of after it. What is started is only read, never shown: the
// fields that use it run only once the resolver has checked the viewer may
// see its object.

// selection is the fields selected under the resolver's field, fragments
// and @include/@skip applied; none outside a field.
func selection(ctx context.Context) []graphql.CollectedField {
	if graphql.GetFieldContext(ctx) == nil {
		return nil
	}
	return graphql.CollectFieldsCtx(ctx, nil)
}

// selectsBeyond reports whether the selection under the resolver's field
// has a field other than the given ones (true outside a field: everything
// may be wanted).
func selectsBeyond(ctx context.Context, fields ...string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return true
	}
	// Most selections are plain fields: read them as they are, without the
	// allocations of collecting fragments and directives.
	plain := true
	for _, sel := range fc.Field.Selections {
		f, ok := sel.(*ast.Field)
		if !ok || len(f.Directives) > 0 {
			plain = false
			break
		}
		if !slices.Contains(fields, f.Name) {
			return true
		}
	}
	if plain {
		return false
	}
	return collectedBeyond(selection(ctx), fields)
}

// collectedBeyond reports whether collected fields have one other than the
// given ones.
func collectedBeyond(collected []graphql.CollectedField, fields []string) bool {
	return slices.ContainsFunc(collected, func(f graphql.CollectedField) bool { return !slices.Contains(fields, f.Name) })
}

// nodesSelect reports whether a connection's nodes (under nodes, or
// edges.node) select any of the named fields.
func nodesSelect(ctx context.Context, names ...string) bool {
	return connectionNodesSelect(graphql.GetOperationContext(ctx), selection(ctx), names)
}

// connectionNodesSelect is nodesSelect for a connection whose selection is
// fields.
func connectionNodesSelect(op *graphql.OperationContext, fields []graphql.CollectedField, names []string) bool {
	named := func(fields []graphql.CollectedField) bool {
		return slices.ContainsFunc(fields, func(f graphql.CollectedField) bool { return slices.Contains(names, f.Name) })
	}
	for _, f := range fields {
		switch f.Name {
		case "nodes":
			if named(graphql.CollectFields(op, f.Selections, nil)) {
				return true
			}
		case "edges":
			for _, e := range graphql.CollectFields(op, f.Selections, nil) {
				if e.Name == "node" && named(graphql.CollectFields(op, e.Selections, nil)) {
					return true
				}
			}
		}
	}
	return false
}

// userGroupsWanted is what the fields selected under me will read of the
// viewer's groups, if anything: the groups themselves (groups), their
// balances (summary, or groups' balances), or just their ids (the filter
// of the viewer's own lists).
func userGroupsWanted(ctx context.Context) (loaders.UserGroupsWith, bool) {
	var with loaders.UserGroupsWith
	wanted := false
	op := graphql.GetOperationContext(ctx)
	for _, f := range selection(ctx) {
		switch f.Name {
		case "summary":
			with.Balances, wanted = true, true
		case "groups":
			with.Groups = true
			if connectionNodesSelect(op, graphql.CollectFields(op, f.Selections, nil), []string{"balances", "debts", "historyHead"}) {
				with.Balances = true
			}
		case "activity", "owes", "expensesPaid", "settlements":
			wanted = true
		case "expenses":
			// Its groups' METADATA say whose days are kept.
			with.Groups, wanted = true, true
		}
	}
	return with, wanted
}

// groupScalars are the group's fields that its METADATA item holds.
var groupScalars = []string{"__typename", "id", "chatId", "title", "currency", "createdAt", "memberCount", "settlementConfirmation", "version", "timeZone", "simplifyDebts", "archivedAt", "deletedAt"}

// prefetchGroup starts the reads of a group's selected fields while its
// viewer's membership is checked: its head for balances and debts, its
// roster for anything that names members (which also answers the check),
// and the first page of each list.
func (r *Resolver) prefetchGroup(ctx context.Context, groupID string) {
	var head, roster bool
	for _, f := range selection(ctx) {
		switch f.Name {
		case "balances", "debts", "historyHead":
			head = true
		case "expenses":
			// A filtered list is the store's search, read by its resolver.
			if f.ArgumentMap(graphql.GetOperationContext(ctx).Variables)["filter"] == nil {
				prefetchPage(ctx, f, "expenses", groupID, r.Store.ListExpenses)
			}
		case "settlements":
			prefetchPage(ctx, f, "settlements", groupID, r.Store.ListSettlements)
		case "activity":
			prefetchPage(ctx, f, "group-activity", groupID, r.Store.ListEvents)
		}
		// spending reads its own summaries; the members it names are read
		// only when asked beyond their ids.
		if !slices.Contains(groupScalars, f.Name) && f.Name != "historyHead" && f.Name != "syncToken" && f.Name != "spending" {
			roster = true
		}
	}
	loaders.PrefetchGroup(ctx, groupID, head, roster)
}

// prefetchPage starts reading the page of a connection field f asks for,
// under the key its resolver will look it up by (pageOf); arguments it
// would refuse start nothing.
func prefetchPage[T any](ctx context.Context, f graphql.CollectedField, name, owner string, list listFunc[T]) {
	args := f.ArgumentMap(graphql.GetOperationContext(ctx).Variables)
	first, ok := intArg(args["first"])
	after, _ := args["after"].(string)
	if !ok || first < 0 || first > store.MaxPageSize {
		return
	}
	pa := store.PageArgs{First: first, After: after}
	loaders.PrefetchPage(ctx, loaders.PageKey{List: name, Owner: owner, Args: pa}, func(ctx context.Context) (store.Page[T], error) {
		return list(ctx, owner, pa)
	})
}

// intArg reads an Int argument, as a literal or a variable holds it; an
// argument left out or null is the default page size, as the resolver has it.
func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case nil:
		return defaultPageSize, true
	case int:
		return n, true
	case int64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}
