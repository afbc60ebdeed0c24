package scalar_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/fracti/api/graph/scalar"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

func marshal(m interface{ MarshalGQL(w io.Writer) }) string {
	var b bytes.Buffer
	m.MarshalGQL(&b)
	return b.String()
}

func TestDecimalInput(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"12.50", "12.50"},
		{"-0.5", "-0.5"},
	} {
		d, err := scalar.UnmarshalDecimal(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, d.String())
	}
	// Money is never a number: a JSON number in variables and an integer or
	// float literal are refused like any other non-string.
	for _, bad := range []any{12.5, json.Number("7.25"), int64(42), 3, "12,50", "1e5", "", true, nil, map[string]any{}} {
		_, err := scalar.UnmarshalDecimal(bad)
		require.Error(t, err, bad)
		var gqlErr *gqlerror.Error
		require.ErrorAs(t, err, &gqlErr)
		require.Equal(t, "BAD_USER_INPUT", gqlErr.Extensions["code"])
	}
}

func TestAmountOutputHasTheCurrencysDecimals(t *testing.T) {
	for code, want := range map[string]string{"USD": `"20.00"`, "JPY": `"20"`, "KWD": `"20.000"`, "TON": `"20.000000000"`} {
		a, err := money.ParseAmount("20", money.MustCurrency(code))
		require.NoError(t, err)
		require.Equal(t, want, marshal(scalar.MarshalAmount(a)), code)
	}
}

func TestDateTime(t *testing.T) {
	ts := time.Date(2024, 1, 20, 18, 30, 0, 5_000_000, time.FixedZone("X", 3600))
	require.Equal(t, `"2024-01-20T17:30:00.005Z"`, marshal(scalar.MarshalDateTime(ts)))
	got, err := scalar.UnmarshalDateTime("2024-01-20T17:30:00.005Z")
	require.NoError(t, err)
	require.True(t, got.Equal(ts))
	_, err = scalar.UnmarshalDateTime("yesterday")
	require.Error(t, err)
}

func TestCurrency(t *testing.T) {
	c, err := scalar.UnmarshalCurrency("ton")
	require.NoError(t, err)
	require.Equal(t, `"TON"`, marshal(scalar.MarshalCurrency(c)))
	_, err = scalar.UnmarshalCurrency("XYZ")
	require.Error(t, err)
}
