package scalar

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/store"
)

// MarshalDate writes a day as "2006-01-02".
func MarshalDate(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(store.FormatDay(t)))
	})
}

// UnmarshalDate reads a "2006-01-02" day as UTC midnight.
func UnmarshalDate(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, badInput(`a Date is a string such as "2024-01-20"`)
	}
	d, err := store.ParseDay(s)
	if err != nil {
		return time.Time{}, badInput(`a Date is a string such as "2024-01-20"`)
	}
	return d, nil
}
