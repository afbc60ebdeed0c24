package gqlgenplugin

import (
	"testing"

	"github.com/99designs/gqlgen/codegen"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"
)

// object is a codegen object named name with the fields given.
func object(name string, root bool, fields ...*codegen.Field) *codegen.Object {
	o := &codegen.Object{Definition: &ast.Definition{Name: name}, Root: root, Fields: fields}
	for _, f := range fields {
		f.Object = o
	}
	return o
}

// Only objects whose fields never wait run in line: bound fields and batch
// resolvers do not wait (more than once for a whole list); a resolver or a
// method taking a context may, and keeps its goroutine. Root types and
// introspection keep gqlgen's own choice.
func TestInlineOnlyWhereNoFieldWaits(t *testing.T) {
	field := &codegen.Field{}
	resolver := func() *codegen.Field { return &codegen.Field{IsResolver: true} }
	objects := map[string]*codegen.Object{
		"Plain":     object("Plain", false, &codegen.Field{}, &codegen.Field{GoFieldType: codegen.GoFieldMethod}),
		"Batched":   object("Batched", false, field, &codegen.Field{IsResolver: true, Batch: true}),
		"Resolving": object("Resolving", false, field, resolver()),
		"Context":   object("Context", false, &codegen.Field{GoFieldType: codegen.GoFieldMethod, MethodHasContext: true}),
		"Query":     object("Query", true, field),
		"__Type":    object("__Type", false, field),
	}
	data := &codegen.Data{}
	for _, o := range objects {
		data.Objects = append(data.Objects, o)
	}
	p := &Inline{}
	require.NoError(t, p.GenerateCode(data))
	require.Equal(t, []string{"Batched", "Plain"}, p.Made)
	for name, o := range objects {
		require.Equal(t, name == "Batched" || name == "Plain", o.DisableConcurrency, name)
	}
	require.False(t, objects["Batched"].Fields[1].IsConcurrent(), "the batch resolver runs in line")
	require.True(t, objects["Resolving"].Fields[1].IsConcurrent(), "a resolver that may wait keeps its goroutine")
}
