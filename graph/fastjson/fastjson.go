// Package fastjson is the writing half of the executor's fast path: a JSON
// buffer that encodes scalars exactly as gqlgen's marshalers do, and a
// cache of collected fields, so that every element of a list reuses the
// fields its selection set collects to instead of collecting them again.
//
// It knows nothing of Fracti's types: graph/fastpath.go walks the loaded
// objects and writes them with it.
package fastjson

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Buffer is a response fragment being written. Its methods append; the
// caller writes the punctuation of objects and lists with Open, Key, Close.
type Buffer struct {
	B []byte
	// first is whether the object or list being written has no member yet,
	// one bit per nesting level: the comma goes before every member but the first.
	first []bool
}

// MarshalGQL writes the buffer as it is: the executor places it where the
// field's value goes.
func (b *Buffer) MarshalGQL(w io.Writer) { _, _ = w.Write(b.B) }

// OpenObject starts a JSON object.
func (b *Buffer) OpenObject() { b.B = append(b.B, '{'); b.first = append(b.first, true) }

// CloseObject ends the object OpenObject started.
func (b *Buffer) CloseObject() { b.B = append(b.B, '}'); b.first = b.first[:len(b.first)-1] }

// OpenList starts a JSON array.
func (b *Buffer) OpenList() { b.B = append(b.B, '['); b.first = append(b.first, true) }

// CloseList ends the array OpenList started.
func (b *Buffer) CloseList() { b.B = append(b.B, ']'); b.first = b.first[:len(b.first)-1] }

// Elem separates the next element of a list from the previous one.
func (b *Buffer) Elem() { b.sep() }

// Key writes the next member's name (a field's alias) and its colon.
func (b *Buffer) Key(alias string) {
	b.sep()
	b.String(alias)
	b.B = append(b.B, ':')
}

func (b *Buffer) sep() {
	i := len(b.first) - 1
	if b.first[i] {
		b.first[i] = false
		return
	}
	b.B = append(b.B, ',')
}

// Null writes null.
func (b *Buffer) Null() { b.B = append(b.B, "null"...) }

// Bool writes true or false (graphql.MarshalBoolean).
func (b *Buffer) Bool(v bool) { b.B = strconv.AppendBool(b.B, v) }

// Int writes an Int (graphql.MarshalInt).
func (b *Buffer) Int(v int) { b.B = strconv.AppendInt(b.B, int64(v), 10) }

// OptString writes a String that is null when empty.
func (b *Buffer) OptString(s string) {
	if s == "" {
		b.Null()
		return
	}
	b.String(s)
}

// Concat writes the string a + sep + c, as String(a+sep+c) would, without
// building it: ids are made of their parts this way.
func (b *Buffer) Concat(parts ...string) {
	b.B = append(b.B, '"')
	for _, p := range parts {
		b.escaped(p)
	}
	b.B = append(b.B, '"')
}

// String writes a String or an ID quoted exactly as graphql.MarshalString
// does (which differs from encoding/json: no HTML escaping, and invalid
// UTF-8 passes through).
func (b *Buffer) String(s string) {
	b.B = append(b.B, '"')
	b.escaped(s)
	b.B = append(b.B, '"')
}

const encodeHex = "0123456789ABCDEF"

// escaped is graphql's writeQuotedString without the quotes.
func (b *Buffer) escaped(s string) {
	start := 0
	for i, c := range s {
		if c < 0x20 || c == '\\' || c == '"' {
			b.B = append(b.B, s[start:i]...)
			switch c {
			case '\t':
				b.B = append(b.B, `\t`...)
			case '\r':
				b.B = append(b.B, `\r`...)
			case '\n':
				b.B = append(b.B, `\n`...)
			case '\\':
				b.B = append(b.B, `\\`...)
			case '"':
				b.B = append(b.B, `\"`...)
			default:
				b.B = append(b.B, `\u00`...)
				b.B = append(b.B, encodeHex[c>>4], encodeHex[c&0xf])
			}
			start = i + 1
		}
	}
	b.B = append(b.B, s[start:]...)
}

// Time writes t in UTC in layout, quoted as strconv.Quote does (layouts
// write only ASCII digits and punctuation, which need no escaping).
func (b *Buffer) Time(t time.Time, layout string) {
	b.B = append(b.B, '"')
	b.B = t.UTC().AppendFormat(b.B, layout)
	b.B = append(b.B, '"')
}

// Fields collects selection sets once per request: every element of a
// list shares its field's selection set, so the collecting (fragments
// spread, @include/@skip applied, same-named fields merged) is done for the
// first element only.
type Fields struct {
	op      *graphql.OperationContext
	entries []entry
}

type entry struct {
	sel    *ast.Selection
	n      int
	typ    string
	fields []graphql.CollectedField
}

// NewFields is a cache of the operation's collected fields.
func NewFields(op *graphql.OperationContext) *Fields { return &Fields{op: op} }

// Collect is graphql.CollectFields(op, sel, satisfies) for objects of type
// typ, whose implementors are satisfies.
func (f *Fields) Collect(sel ast.SelectionSet, typ string, satisfies []string) []graphql.CollectedField {
	if len(sel) == 0 {
		return nil
	}
	for _, e := range f.entries {
		if e.sel == &sel[0] && e.n == len(sel) && e.typ == typ {
			return e.fields
		}
	}
	fields := graphql.CollectFields(f.op, sel, satisfies)
	f.entries = append(f.entries, entry{sel: &sel[0], n: len(sel), typ: typ, fields: fields})
	return fields
}
