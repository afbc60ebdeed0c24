package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Access tokens and invite secrets are made alike: a prefix that says what
// they are, then random bytes in unpadded base64url. Only their SHA-256 is
// stored.

// newSecret returns prefix followed by n random bytes in base64url.
func newSecret(prefix string, n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// hashSecret returns the lowercase hex SHA-256 of a secret.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// isSecret reports whether s is exactly what newSecret(prefix, n) makes.
// Strict decoding also rejects non-zero trailing bits, so each secret has
// exactly one spelling.
func isSecret(s, prefix string, n int) bool {
	body, ok := strings.CutPrefix(s, prefix)
	if !ok || len(body) != (n*8+5)/6 {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(body)
	return err == nil && len(b) == n
}
