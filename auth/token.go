package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// TokenPrefix starts every personal access token, so leaked tokens are easy to
// recognise (secret scanners, logs) and to tell apart from init data.
const TokenPrefix = "frt_"

const (
	// tokenBytes is the entropy of a token.
	tokenBytes = 32
	// tokenLen is the prefix plus unpadded base64url of tokenBytes.
	tokenLen = len(TokenPrefix) + (tokenBytes*8+5)/6
)

var (
	// ErrTokenMalformed means a bearer credential is not shaped like a Fracti access token.
	ErrTokenMalformed = errors.New("access token is malformed")
	// ErrTokenUnknown means no stored token has the credential's hash (never issued or revoked).
	ErrTokenUnknown = errors.New("unknown access token")
	// ErrTokenExpired means the access token's expiry has passed.
	ErrTokenExpired = errors.New("access token expired")

	errTokenShape = fmt.Errorf("%w: expected %q followed by %d base64url characters", ErrTokenMalformed, TokenPrefix, tokenLen-len(TokenPrefix))
)

// NewToken returns a fresh random personal access token.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating access token: %w", err)
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// HashToken returns the lowercase hex SHA-256 of the whole token, which is what the store keeps.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// checkToken rejects credentials NewToken cannot have produced, so garbage
// never reaches the store.
func checkToken(token string) error {
	body, ok := strings.CutPrefix(token, TokenPrefix)
	if !ok {
		return fmt.Errorf("%w: it must start with %q", ErrTokenMalformed, TokenPrefix)
	}
	if len(token) != tokenLen {
		return errTokenShape
	}
	// Strict also rejects non-zero trailing bits, so each token has exactly one spelling.
	if b, err := base64.RawURLEncoding.Strict().DecodeString(body); err != nil || len(b) != tokenBytes {
		return errTokenShape
	}
	return nil
}
