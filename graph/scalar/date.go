package scalar

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/store"
)

// MarshalDay writes a day held as a time (UTC midnight, as store.ParseDay
// reads it) as a Date: "2006-01-02". Inputs are read as Date strings
// (UnmarshalDate); UnmarshalDay is for fields bound to a time.
func MarshalDay(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(store.FormatDay(t)))
	})
}

// UnmarshalDay reads a Date as UTC midnight of that day.
func UnmarshalDay(v any) (time.Time, error) {
	s, err := UnmarshalDate(v)
	if err != nil {
		return time.Time{}, err
	}
	return store.ParseDay(s)
}
