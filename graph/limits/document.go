package limits

import (
	"context"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
)

// countCap is where expanded counts stop growing: far above any limit, far
// below overflow.
const countCap = 1 << 31

// checkEvery is how many steps a walk takes between looks at the deadline.
const checkEvery = 1024

// CheckDocument checks a query's text and shape before it is validated:
// size, tokens, directives and fragment spreads as written, then depth,
// aliases, root fields and selections of every operation and fragment with
// fragments expanded. A document that does not lex or parse passes: the
// parser that runs next reports its syntax error. Its cost is linear in the
// document, which MaxDocumentBytes and MaxTokens bound.
func (c Config) CheckDocument(ctx context.Context, query string) *gqlerror.Error {
	c = c.withDefaults()
	if len(query) > c.MaxDocumentBytes {
		return exceeded(CodeDocumentTooLarge, c.MaxDocumentBytes,
			"the document is %d bytes; the limit is %d", len(query), c.MaxDocumentBytes)
	}
	src := &ast.Source{Input: query}
	if err := c.countTokens(ctx, src); err != nil {
		return err
	}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return nil
	}
	return c.checkShape(ctx, doc)
}

// OperationType is the type of the operation name picks in query (the
// only one when name is empty), or "" when it cannot be told within the
// limits: the document is too large, has too many tokens, does not parse or
// has no such operation. It lets a transport be chosen before the request
// runs, at no more cost than CheckDocument's.
func (c Config) OperationType(query, name string) ast.Operation {
	c = c.withDefaults()
	if len(query) > c.MaxDocumentBytes {
		return ""
	}
	src := &ast.Source{Input: query}
	if c.countTokens(context.Background(), src) != nil {
		return ""
	}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return ""
	}
	if op := doc.Operations.ForName(name); op != nil {
		return op.Operation
	}
	return ""
}

// countTokens lexes the document, stopping as soon as it has too many
// tokens, so a huge document costs no more than MaxTokens tokens.
func (c Config) countTokens(ctx context.Context, src *ast.Source) *gqlerror.Error {
	lx := lexer.New(src)
	for n := 0; ; n++ {
		tok, err := lx.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return nil
		}
		if n >= c.MaxTokens {
			return exceeded(CodeTokenLimit, c.MaxTokens, "the document has more than %d tokens", c.MaxTokens)
		}
		if n%checkEvery == 0 && ctx.Err() != nil {
			return timeout()
		}
	}
}

func timeout() *gqlerror.Error {
	return &gqlerror.Error{
		Message:    "the request's time ran out while its operation was being checked",
		Extensions: map[string]any{"code": CodeTimeout},
	}
}

// shape is what the limits count of a selection set, fragments expanded.
type shape struct {
	fields  int // every field, nested ones included
	aliases int // fields written with an alias
	depth   int // levels of fields
	roots   int // fields at this level
}

func (s *shape) add(o shape, nest bool) {
	s.fields = saturating(s.fields, o.fields, countCap)
	s.aliases = saturating(s.aliases, o.aliases, countCap)
	if nest {
		o.depth++
	}
	s.depth = max(s.depth, o.depth)
}

// shapeWalker counts selection sets, each named fragment once.
type shapeWalker struct {
	ctx       context.Context
	fragments map[string]*ast.FragmentDefinition
	memo      map[string]shape
	visiting  map[string]bool
	steps     int
	err       *gqlerror.Error

	directives, spreads int // as written in the document
}

func (c Config) checkShape(ctx context.Context, doc *ast.QueryDocument) *gqlerror.Error {
	w := &shapeWalker{
		ctx:       ctx,
		fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)),
		memo:      make(map[string]shape, len(doc.Fragments)),
		visiting:  map[string]bool{},
	}
	for _, f := range doc.Fragments {
		if _, dup := w.fragments[f.Name]; !dup { // duplicates are a validation error
			w.fragments[f.Name] = f
		}
		w.directives += len(f.Directives)
	}
	for _, op := range doc.Operations {
		w.directives += len(op.Directives)
		for _, v := range op.VariableDefinitions {
			w.directives += len(v.Directives)
		}
	}
	// Written counts first: they need no expansion.
	for _, op := range doc.Operations {
		w.countWritten(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		w.countWritten(f.SelectionSet)
	}
	if w.directives > c.MaxDirectives {
		return exceeded(CodeDirectiveLimit, c.MaxDirectives,
			"the document has %d directives; the limit is %d", w.directives, c.MaxDirectives)
	}
	if w.spreads > c.MaxFragmentSpreads {
		return exceeded(CodeFragmentSpreadLimit, c.MaxFragmentSpreads,
			"the document has %d fragment spreads; the limit is %d", w.spreads, c.MaxFragmentSpreads)
	}

	// Every operation, and every fragment for what validation's cost depends
	// on (even one no operation uses: validation walks it too). A fragment's
	// depth and root fields count only where an operation spreads it.
	check := func(what string, s shape, op bool) *gqlerror.Error {
		switch {
		case w.err != nil:
			return w.err
		case op && s.depth > c.MaxDepth:
			return exceeded(CodeDepthLimit, c.MaxDepth,
				"%s nests fields %d levels deep (fragments included); the limit is %d", what, s.depth, c.MaxDepth)
		case s.fields > c.MaxSelections:
			return exceeded(CodeSelectionLimit, c.MaxSelections,
				"%s selects %s fields (fragments expanded); the limit is %d", what, count(s.fields), c.MaxSelections)
		case s.aliases > c.MaxAliases:
			return exceeded(CodeAliasLimit, c.MaxAliases,
				"%s has %s aliased fields (fragments expanded); the limit is %d", what, count(s.aliases), c.MaxAliases)
		case op && s.roots > c.MaxRootFields:
			return exceeded(CodeRootFieldLimit, c.MaxRootFields,
				"%s has %s top-level fields (fragments expanded); the limit is %d", what, count(s.roots), c.MaxRootFields)
		}
		return nil
	}
	for _, op := range doc.Operations {
		what := "the operation"
		if op.Name != "" {
			what += " " + op.Name
		}
		if err := check(what, w.selectionSet(op.SelectionSet), true); err != nil {
			return err
		}
	}
	for _, f := range doc.Fragments {
		if err := check("fragment "+f.Name, w.fragment(f.Name), false); err != nil {
			return err
		}
	}
	return nil
}

// count writes a saturated count as "more than …".
func count(n int) string {
	if n >= countCap {
		return "more than 2147483647"
	}
	return strconv.Itoa(n)
}

// countWritten counts the directives and fragment spreads as written.
func (w *shapeWalker) countWritten(set ast.SelectionSet) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			w.directives += len(s.Directives)
			w.countWritten(s.SelectionSet)
		case *ast.FragmentSpread:
			w.directives += len(s.Directives)
			w.spreads++
		case *ast.InlineFragment:
			w.directives += len(s.Directives)
			w.countWritten(s.SelectionSet)
		}
	}
}

// selectionSet is the shape of a selection set: roots are its own fields
// (through fragments), depth the deepest field chain below it.
func (w *shapeWalker) selectionSet(set ast.SelectionSet) shape {
	var out shape
	for _, sel := range set {
		if w.step() {
			return out
		}
		switch s := sel.(type) {
		case *ast.Field:
			child := w.selectionSet(s.SelectionSet)
			one := shape{fields: 1}
			if s.Alias != "" && s.Alias != s.Name {
				one.aliases = 1
			}
			if s.Name != "__schema" && s.Name != "__type" {
				// Introspection's depth is bounded by its own validation rule.
				one.depth = child.depth
			}
			one.add(shape{fields: child.fields, aliases: child.aliases}, false)
			out.add(one, true)
			out.roots = saturating(out.roots, 1, countCap)
		case *ast.FragmentSpread:
			f := w.fragment(s.Name)
			out.add(f, false)
			out.roots = saturating(out.roots, f.roots, countCap)
		case *ast.InlineFragment:
			f := w.selectionSet(s.SelectionSet)
			out.add(f, false)
			out.roots = saturating(out.roots, f.roots, countCap)
		}
	}
	return out
}

// fragment is a named fragment's shape, computed once. An unknown fragment
// or a cycle counts as empty here; validation rejects both.
func (w *shapeWalker) fragment(name string) shape {
	if s, ok := w.memo[name]; ok {
		return s
	}
	f := w.fragments[name]
	if f == nil || w.visiting[name] {
		return shape{}
	}
	w.visiting[name] = true
	s := w.selectionSet(f.SelectionSet)
	delete(w.visiting, name)
	w.memo[name] = s
	return s
}

// step counts a step and reports whether the deadline has passed.
func (w *shapeWalker) step() bool {
	if w.err != nil {
		return true
	}
	if w.steps++; w.steps%checkEvery == 0 && w.ctx.Err() != nil {
		w.err = timeout()
	}
	return w.err != nil
}
