package auth

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var tokenPattern = regexp.MustCompile(`^frt_[A-Za-z0-9_-]{43}$`)

func TestNewTokenFormat(t *testing.T) {
	for range 100 {
		tok, err := NewToken()
		require.NoError(t, err)
		require.Regexp(t, tokenPattern, tok)
		require.NoError(t, checkToken(tok))
	}
}

func TestNewTokenUnique(t *testing.T) {
	const n = 5000
	seen := make(map[string]bool, n)
	for range n {
		tok, err := NewToken()
		require.NoError(t, err)
		require.False(t, seen[tok], "duplicate token %s", tok)
		seen[tok] = true
	}
}

func TestHashToken(t *testing.T) {
	tok, err := NewToken()
	require.NoError(t, err)

	tests := []struct {
		name  string
		token string
		want  string
	}{
		// FIPS 180-2 test vector, so the hash is SHA-256 of the whole string, hex-encoded.
		{"known answer", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"stable for a token", tok, HashToken(tok)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HashToken(tt.token)
			require.Equal(t, tt.want, got)
			require.Regexp(t, `^[0-9a-f]{64}$`, got)
		})
	}
	require.NotEqual(t, HashToken(tok), HashToken(strings.TrimPrefix(tok, TokenPrefix)), "the prefix is part of the hashed string")
}

func TestCheckToken(t *testing.T) {
	body := strings.Repeat("A", 42)
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"canonical", TokenPrefix + body + "A", true},
		{"all alphabet classes", TokenPrefix + "abcXYZ019-_" + strings.Repeat("Q", 31) + "E", true},
		{"no prefix", body + "AAAAA", false},
		{"uppercase prefix", "FRT_" + body + "A", false},
		{"other prefix", "ghp_" + body + "A", false},
		{"prefix only", TokenPrefix, false},
		{"too short", TokenPrefix + body, false},
		{"too long", TokenPrefix + body + "AA", false},
		{"padded", TokenPrefix + body + "A=", false},
		{"standard base64 alphabet", TokenPrefix + "+/" + body[2:] + "A", false},
		{"space inside", TokenPrefix + body[:20] + " " + body[21:] + "A", false},
		{"non-zero trailing bits", TokenPrefix + body + "B", false},
		{"non-ASCII", TokenPrefix + body[:41] + "é", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkToken(tt.token)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrTokenMalformed)
			if len(tt.token) > len(TokenPrefix) {
				require.NotContains(t, err.Error(), tt.token[len(TokenPrefix):], "never echo the credential")
			}
		})
	}
}
