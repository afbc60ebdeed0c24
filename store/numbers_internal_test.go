package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlainDecimal(t *testing.T) {
	for in, want := range map[string]string{
		"12.5":     "12.5",
		"1E+15":    "1000000000000000",
		"1e15":     "1000000000000000",
		"1.5E+3":   "1500",
		"1.25E+1":  "12.5",
		"-1.5E-2":  "-0.015",
		"5E-9":     "0.000000005",
		"0E+2":     "0",
		"-0E+0":    "0",
		"123E0":    "123",
		"9.99E+37": "99900000000000000000000000000000000000",
	} {
		got, err := plainDecimal(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"1E+1000", "1Ex", "xE2"} {
		_, err := plainDecimal(bad)
		require.Error(t, err, bad)
	}
}
