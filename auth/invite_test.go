package auth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInviteSecret(t *testing.T) {
	a, err := NewInviteSecret()
	require.NoError(t, err)
	b, err := NewInviteSecret()
	require.NoError(t, err)
	require.NotEqual(t, a, b)
	require.True(t, IsInviteSecret(a))
	require.LessOrEqual(t, len(a), 64, "fits a Telegram start parameter")
	for _, c := range a {
		require.True(t, c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'),
			"Telegram allows only A-Z, a-z, 0-9, _ and - in start parameters: %q", c)
	}
	require.Len(t, HashInviteSecret(a), 64)
	require.NotEqual(t, HashInviteSecret(a), HashInviteSecret(b))

	for _, bad := range []string{"", "inv_", a[:len(a)-1], a + "A", strings.Replace(a, "inv_", "frt_", 1), "inv_" + strings.Repeat("!", 32)} {
		require.False(t, IsInviteSecret(bad), bad)
	}
}
