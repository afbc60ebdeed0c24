// Package scalar marshals Fracti's custom GraphQL scalars: Decimal (exact
// numbers and money amounts as JSON strings), DateTime, and currencies as
// String.
package scalar

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// MarshalDecimal writes a decimal as a JSON string with its own scale.
func MarshalDecimal(d money.Decimal) graphql.Marshaler { return graphql.MarshalString(d.String()) }

// UnmarshalDecimal reads a Decimal input, which is a string such as "12.50"
// in variables and literals alike: a JSON or GraphQL number is refused,
// because money is never a float and a client's number may already have
// lost digits on its way here.
func UnmarshalDecimal(v any) (money.Decimal, error) {
	s, ok := v.(string)
	if !ok {
		what := fmt.Sprintf("%T", v)
		switch v.(type) {
		case json.Number, int, int64, float64, float32:
			what = "numbers"
		}
		return money.Decimal{}, badInput(`Decimal values are strings such as "12.50", not ` + what)
	}
	d, err := money.ParseDecimal(s)
	if err != nil {
		return money.Decimal{}, badInput(err.Error())
	}
	return d, nil
}

// MarshalAmount writes an amount with exactly its currency's decimals.
func MarshalAmount(a money.Amount) graphql.Marshaler { return graphql.MarshalString(a.String()) }

// UnmarshalAmount is never used: inputs are Decimals, checked against their
// currency by the resolver that knows it.
func UnmarshalAmount(any) (money.Amount, error) {
	return money.Amount{}, badInput("an amount needs its currency")
}

// MarshalCursor writes a page position as the opaque string clients pass
// back as `after`: encoded only here, when a client asked for it.
func MarshalCursor(c store.Cursor) graphql.Marshaler { return graphql.MarshalString(c.String()) }

// UnmarshalCursor is never used: `after` arguments are plain strings, which
// the store decodes and verifies.
func UnmarshalCursor(any) (store.Cursor, error) {
	return store.Cursor{}, badInput("a cursor is read as a String argument")
}

// MarshalCurrency writes a currency as its code.
func MarshalCurrency(c money.Currency) graphql.Marshaler { return graphql.MarshalString(c.Code()) }

// UnmarshalCurrency reads a currency code.
func UnmarshalCurrency(v any) (money.Currency, error) {
	s, ok := v.(string)
	if !ok {
		return money.Currency{}, badInput("a currency is a string code such as USD")
	}
	c, err := money.LookupCurrency(s)
	if err != nil {
		return money.Currency{}, badInput(err.Error())
	}
	return c, nil
}

// dateTimeLayout is ISO 8601 in UTC with milliseconds.
const dateTimeLayout = "2006-01-02T15:04:05.000Z"

// MarshalDateTime writes a time as ISO 8601 in UTC with milliseconds.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(t.UTC().Format(dateTimeLayout)))
	})
}

// UnmarshalDateTime reads an RFC 3339 / ISO 8601 time.
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, badInput(`a DateTime is a string such as "2024-01-20T18:30:00.000Z"`)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, badInput(`a DateTime is a string such as "2024-01-20T18:30:00.000Z"`)
	}
	return t, nil
}

// badInput is an input error the client can act on.
func badInput(msg string) error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": "BAD_USER_INPUT"}}
}

// MarshalDate writes a day ("2024-01-20") as it is stored.
func MarshalDate(day string) graphql.Marshaler { return graphql.MarshalString(day) }

// UnmarshalDate reads a Date: a real calendar day written YYYY-MM-DD.
func UnmarshalDate(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", badInput(`a Date is a string such as "2024-01-20"`)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Format(time.DateOnly) != s {
		return "", badInput(fmt.Sprintf(`%q is not a Date: a day written YYYY-MM-DD, such as "2024-01-20"`, s))
	}
	return s, nil
}
