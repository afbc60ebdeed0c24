package limits

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Complexity is the cost of a validated operation with its variables: 1 per
// field plus what the schema's complexity functions say (a list field costs
// its children once per item it may return), an interface field costing as
// its most expensive implementation. It follows gqlgen's own calculation
// except that each fragment is costed once, however often it is spread,
// introspection counts like any other field, and the walk stops when ctx
// ends (the error then says so).
func Complexity(ctx context.Context, es graphql.ExecutableSchema, op *ast.OperationDefinition, vars map[string]any) (int, *gqlerror.Error) {
	w := &complexityWalker{ctx: ctx, es: es, schema: es.Schema(), vars: vars, memo: map[string]int{}}
	n := w.selectionSet(op.SelectionSet)
	return n, w.err
}

type complexityWalker struct {
	ctx    context.Context
	es     graphql.ExecutableSchema
	schema *ast.Schema
	vars   map[string]any
	memo   map[string]int
	steps  int
	err    *gqlerror.Error
}

func (w *complexityWalker) selectionSet(set ast.SelectionSet) int {
	total := 0
	for _, sel := range set {
		if w.steps++; w.steps%checkEvery == 0 && w.err == nil && w.ctx.Err() != nil {
			w.err = timeout()
		}
		if w.err != nil {
			return total
		}
		switch s := sel.(type) {
		case *ast.Field:
			total = saturating(total, w.field(s), countCap)
		case *ast.FragmentSpread:
			n, ok := w.memo[s.Name]
			if !ok && s.Definition != nil {
				n = w.selectionSet(s.Definition.SelectionSet)
				w.memo[s.Name] = n
			}
			total = saturating(total, n, countCap)
		case *ast.InlineFragment:
			total = saturating(total, w.selectionSet(s.SelectionSet), countCap)
		}
	}
	return total
}

func (w *complexityWalker) field(f *ast.Field) int {
	if f.Definition == nil || f.ObjectDefinition == nil {
		return 1 // not validated; cannot happen after validation
	}
	typ := w.schema.Types[f.Definition.Type.Name()]
	child := 0
	if typ != nil && (typ.Kind == ast.Object || typ.Kind == ast.Interface || typ.Kind == ast.Union) {
		child = w.selectionSet(f.SelectionSet)
	}
	args := f.ArgumentMap(w.vars)
	owners := []*ast.Definition{f.ObjectDefinition}
	if f.ObjectDefinition.Kind == ast.Interface {
		// Interfaces have no costs of their own: assume the dearest implementation.
		owners = w.schema.GetPossibleTypes(f.ObjectDefinition)
	}
	cost := 0
	for _, owner := range owners {
		c, ok := w.es.Complexity(w.ctx, owner.Name, f.Name, child, args)
		if !ok || c < 1 {
			c = saturating(1, child, countCap)
		}
		cost = max(cost, min(c, countCap))
	}
	return cost
}
