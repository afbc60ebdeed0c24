package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// InvitePrefix starts every invite secret, so that one is easy to tell from
// an access token (it is a key to one group, not to an account).
const InvitePrefix = "inv_"

// inviteBytes is the entropy of an invite secret. Its base64url form is 32
// characters, well within the 64 that Telegram allows in a start parameter.
const inviteBytes = 24

// NewInviteSecret returns a fresh random invite secret, made of the
// characters Telegram allows in a Mini App's start parameter.
func NewInviteSecret() (string, error) {
	b := make([]byte, inviteBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating invite secret: %w", err)
	}
	return InvitePrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// HashInviteSecret returns the lowercase hex SHA-256 of an invite secret,
// which is all the store keeps of it.
func HashInviteSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// IsInviteSecret reports whether s is shaped like a secret NewInviteSecret
// made, so that anything else is refused without a lookup.
func IsInviteSecret(s string) bool {
	body, ok := strings.CutPrefix(s, InvitePrefix)
	if !ok || len(body) != (inviteBytes*8+5)/6 {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(body)
	return err == nil && len(b) == inviteBytes
}
