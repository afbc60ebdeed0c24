package payments

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseUPI(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "rahul.sharma@okaxis", want: "rahul.sharma@okaxis"},
		{in: " 9876543210@ybl ", want: "9876543210@ybl"},
		{in: "Priya_K-1@Paytm", want: "priya_k-1@paytm"},
		{in: "shop@icici2", want: "shop@icici2"},
		{in: "rahul", err: "name@handle"},
		{in: "r@okaxis", err: "name@handle"},
		{in: "rahul@@okaxis", err: "name@handle"},
		{in: "rahul sharma@okaxis", err: "name@handle"},
		{in: "rahul@ok.axis", err: "name@handle"},
		{in: "rahul@1bank", err: "name@handle"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseUPI(tc.in)
			if tc.err != "" {
				var fe *FieldError
				require.True(t, errors.As(err, &fe))
				require.Equal(t, "upi", fe.Field)
				require.Contains(t, fe.Msg, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
