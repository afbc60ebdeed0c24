package graph

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/graph/fastjson"
)

// The executor writes the whole response into one bytes.Buffer that starts
// empty and doubles as it grows: for a group screen of about 50 KB, some
// 130 KB of arrays made and copied, most of them for the fast path's
// fragments. Every fragment is written before the executor writes anything
// (a root field's resolvers all finish before it is marshalled), so the
// first fragment a root field writes grows the buffer once for all of them.

// fragmentTotal is, per root field, the bytes of the fast path's fragments
// not yet written out.
type fragmentTotal struct{ n atomic.Int64 }

type fragmentTotalKey struct{}

// aroundRootField gives each root field the count of its fragments' bytes.
func (p *fastPath) aroundRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	return next(context.WithValue(ctx, fragmentTotalKey{}, &fragmentTotal{}))
}

// fragment is a fast list field's written value.
type fragment struct {
	fastjson.Buffer
	total *fragmentTotal // nil outside a root field
}

// newFragment counts a written value in its root field's total.
func newFragment(ctx context.Context, b fastjson.Buffer) *fragment {
	t, _ := ctx.Value(fragmentTotalKey{}).(*fragmentTotal)
	if t != nil {
		t.n.Add(int64(len(b.B)))
	}
	return &fragment{Buffer: b, total: t}
}

// MarshalGQL writes the fragment; the root field's first one makes room for
// all of them, and a little more for what the executor writes around them.
func (f *fragment) MarshalGQL(w io.Writer) {
	if buf, ok := w.(*bytes.Buffer); ok && f.total != nil {
		if n := f.total.n.Swap(0); n > int64(buf.Available()) {
			buf.Grow(int(n + n/16 + 1024))
		}
	}
	f.Buffer.MarshalGQL(w)
}
