package auth

import "fmt"

// InvitePrefix starts every invite secret, so that one is easy to tell from
// an access token (it is a key to one group, not to an account).
const InvitePrefix = "inv_"

// inviteBytes is the entropy of an invite secret. Its base64url form is 32
// characters, well within the 64 that Telegram allows in a start parameter.
const inviteBytes = 24

// NewInviteSecret returns a fresh random invite secret, made of the
// characters Telegram allows in a Mini App's start parameter.
func NewInviteSecret() (string, error) {
	secret, err := newSecret(InvitePrefix, inviteBytes)
	if err != nil {
		return "", fmt.Errorf("generating invite secret: %w", err)
	}
	return secret, nil
}

// HashInviteSecret returns the lowercase hex SHA-256 of an invite secret,
// which is all the store keeps of it.
func HashInviteSecret(secret string) string { return hashSecret(secret) }

// IsInviteSecret reports whether s is shaped like a secret NewInviteSecret
// made, so that anything else is refused without a lookup.
func IsInviteSecret(s string) bool { return isSecret(s, InvitePrefix, inviteBytes) }
