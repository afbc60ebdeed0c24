package auth

import (
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
	token, err := newSecret(TokenPrefix, tokenBytes)
	if err != nil {
		return "", fmt.Errorf("generating access token: %w", err)
	}
	return token, nil
}

// HashToken returns the lowercase hex SHA-256 of the whole token, which is what the store keeps.
func HashToken(token string) string { return hashSecret(token) }

// checkToken rejects credentials NewToken cannot have produced, so garbage
// never reaches the store.
func checkToken(token string) error {
	if !strings.HasPrefix(token, TokenPrefix) {
		return fmt.Errorf("%w: it must start with %q", ErrTokenMalformed, TokenPrefix)
	}
	if !isSecret(token, TokenPrefix, tokenBytes) {
		return errTokenShape
	}
	return nil
}
