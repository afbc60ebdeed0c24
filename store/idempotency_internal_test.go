package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFingerprintIsUnambiguous(t *testing.T) {
	// Pairs of part lists that joining with a separator would confuse.
	for _, tc := range [][2][]string{
		{{"a\\x00b"}, {"a", "b"}},
		{{"a\x00b"}, {"a", "b"}},
		{{"ab", ""}, {"a", "b"}},
		{{"", "ab"}, {"a", "b"}},
		{{"a", ""}, {"a"}},
		{{}, {""}},
	} {
		require.NotEqual(t, fingerprint(tc[0]...), fingerprint(tc[1]...), "%q vs %q", tc[0], tc[1])
	}
	require.Equal(t, fingerprint("a", "b"), fingerprint("a", "b"))
}
