package tonapi

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// Hash is a 32-byte transaction or message hash.
type Hash [32]byte

// ErrBadHash is returned by ParseHash for text that is not a 32-byte hash.
var ErrBadHash = errors.New("not a transaction hash: give its 64 hex digits, or its 44 characters of base64 or base64url")

// ParseHash reads a hash in any form the API and wallets give it: 64 hex
// digits (either case), or base64 or base64url, padded or not. Two texts of
// one hash parse to the same Hash, so hashes are compared as Hashes.
func ParseHash(s string) (Hash, error) {
	var h Hash
	s = strings.TrimSpace(s)
	if len(s) == 64 {
		if _, err := hex.Decode(h[:], []byte(s)); err == nil {
			return h, nil
		}
	}
	trimmed := strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(trimmed); err == nil && len(b) == 32 {
			copy(h[:], b)
			return h, nil
		}
	}
	return Hash{}, ErrBadHash
}

// Hex is the hash as 64 lower-case hex digits, its canonical text here.
func (h Hash) Hex() string { return hex.EncodeToString(h[:]) }

// IsZero reports whether h is all zeros (absent).
func (h Hash) IsZero() bool { return h == Hash{} }
