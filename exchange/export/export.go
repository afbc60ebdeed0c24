// Package export writes one group's data to a file as it reads it from the
// table, page by page: Fracti's JSON document (exchange/fractijson) and a
// CSV in Splitwise's group layout. Nothing but a page of items (and, for
// the CSV, the group's members) is held at a time, so memory stays flat
// for any group size.
package export

import (
	"bufio"
	"context"
	"io"
	"time"

	"github.com/fracti/api/store"
)

// Export writes one group's data. Its fields are what every format needs.
type Export struct {
	Store *store.Store
	Group *store.Group
	// Now is when the export is made: the JSON's exportedAt, the day of the
	// CSV's Total balance rows and of the file's name.
	Now time.Time
	// Flush, when set, is called after each page is written, so that a
	// client receives the file as it is read rather than all at the end.
	Flush func()
}

// bufferSize is the buffer an export writes through: a few items' worth,
// so that small writes do not each reach the connection.
const bufferSize = 32 << 10

// out is the buffered writer of one export, with its first error kept so
// that a long sequence of writes can be checked once.
type out struct {
	w     *bufio.Writer
	flush func()
	err   error
}

func newOut(w io.Writer, flush func()) *out {
	return &out{w: bufio.NewWriterSize(w, bufferSize), flush: flush}
}

func (o *out) write(b []byte) {
	if o.err == nil {
		_, o.err = o.w.Write(b)
	}
}

// Write lets an encoder (the CSV's) write through o.
func (o *out) Write(b []byte) (int, error) {
	o.write(b)
	return len(b), o.err
}

func (o *out) str(s string) {
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
}

// page hands what was written to the client: called after every page.
func (o *out) page() error {
	if o.err == nil {
		o.err = o.w.Flush()
	}
	if o.err == nil && o.flush != nil {
		o.flush()
	}
	return o.err
}

// eachPage reads a list page by page (store.MaxPageSize items each) and
// hands each page to fn, until the list ends or something fails.
func eachPage[T any](ctx context.Context, list func(context.Context, string, store.PageArgs) (store.Page[T], error),
	groupID string, fn func([]T) error) error {
	r := &reader[T]{list: list, groupID: groupID}
	for !r.done {
		items, err := r.nextPage(ctx)
		if err != nil {
			return err
		}
		if err := fn(items); err != nil {
			return err
		}
	}
	return nil
}

// location is the group's time zone (UTC when it has none, or an unknown one).
func (x Export) location() *time.Location {
	if loc, err := store.LoadZone(x.Group.TimeZone); err == nil {
		return loc
	}
	return time.UTC
}

// balances is the group's balances as members see them.
func (x Export) balances(ctx context.Context) (*store.GroupBalances, error) {
	gbs, err := x.Store.GetBalances(ctx, []string{x.Group.ID})
	if err != nil {
		return nil, err
	}
	if gbs[0] == nil {
		return &store.GroupBalances{GroupID: x.Group.ID}, nil
	}
	return gbs[0], nil
}
