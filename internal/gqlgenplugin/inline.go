// Package gqlgenplugin holds the gqlgen plugins of the project's own
// generate command (cmd/gqlgen): they adjust gqlgen's view of the schema
// before the executor is written, through gqlgen's plugin API, so that no
// generated code is rewritten afterwards and no template is forked.
package gqlgenplugin

import (
	"fmt"
	"io"
	"slices"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/plugin"
)

// Inline runs in line the fields of every object whose fields never wait.
//
// gqlgen starts a goroutine for each field that is a resolver or a method
// taking a context, on every element of every list; on a screen of a few
// hundred objects that is most of the executor's cost. A field waits when
// it reads through a dataloader: run in line, one element after another,
// each such wait would take a batch window of its own. So an object is made
// sequential (codegen.Object.DisableConcurrency) only when each of its
// resolver fields is a batch resolver, which resolves the field once for
// all the parents of a list: it waits once, in line, for all of them.
// Fields bound to a struct field or a method without a context never wait.
// Root types keep gqlgen's own choice (Query concurrent, Mutation serial).
type Inline struct {
	// Log, when set, lists the objects made sequential.
	Log io.Writer
	// Made is what the last GenerateCode made sequential, sorted.
	Made []string
}

var _ plugin.CodeGenerator = (*Inline)(nil)

// Name names the plugin in gqlgen's messages.
func (*Inline) Name() string { return "fracti-inline" }

// GenerateCode marks the objects whose fields never wait as sequential
// before gqlgen writes the executor.
func (p *Inline) GenerateCode(data *codegen.Data) error {
	p.Made = p.Made[:0]
	for _, o := range data.Objects {
		if o.Root || o.IsReserved() || o.DisableConcurrency || !neverWaits(o) {
			continue
		}
		o.DisableConcurrency = true
		p.Made = append(p.Made, o.Name)
	}
	slices.Sort(p.Made)
	if p.Log != nil {
		fmt.Fprintf(p.Log, "fields in line on %d objects: %v\n", len(p.Made), p.Made)
	}
	return nil
}

// neverWaits reports whether none of o's fields can wait on anything but
// a batch resolver's one wait.
func neverWaits(o *codegen.Object) bool {
	for _, f := range o.Fields {
		if (f.IsResolver || f.MethodHasContext) && !f.IsBatch() {
			return false
		}
	}
	return true
}
