// Package ton validates addresses on The Open Network (TON), so Fracti can
// check a wallet address a user pastes before anyone sends coins to it.
package ton

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	crc16ccitt "github.com/fracti/api/internal/crc16"
)

// ErrInvalidAddress is wrapped by every error ValidateAddress returns.
var ErrInvalidAddress = errors.New("invalid TON address")

const (
	friendlyLen = 48 // base64 characters of a user-friendly address
	rawHexLen   = 64 // hex characters of a raw account id

	flagBounceable    = 0x11
	flagNonBounceable = 0x51
	flagTestnet       = 0x80

	workchainBase   = 0x00 // workchain 0, where user wallets live
	workchainMaster = 0xff // workchain -1, the masterchain
)

// ValidateAddress returns nil if s is a valid TON address, user-friendly
// (48 base64 characters with a checksum, mainnet or testnet) or raw ("0:" or
// "-1:" and 64 hex digits), or else an error wrapping ErrInvalidAddress.
func ValidateAddress(s string) error {
	_, err := ParseAccount(s)
	return err
}

// ParseAccount reads an address in any form ValidateAddress accepts, or
// says why it is not one.
func ParseAccount(s string) (Account, error) {
	if s == "" {
		return Account{}, fmt.Errorf("%w: it is empty", ErrInvalidAddress)
	}
	if strings.Contains(s, ":") {
		return parseRaw(s)
	}
	return parseFriendly(s)
}

// parseFriendly reads the 48-character form: 1 flag byte, 1 workchain
// byte, 32-byte account id, then CRC16-XMODEM of those 34 bytes, big-endian.
func parseFriendly(s string) (Account, error) {
	// Check characters before length: "a space at character 3" helps a user
	// more than "49 characters long".
	std, url := false, false
	for i := range len(s) {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '+' || c == '/':
			std = true
		case c == '-' || c == '_':
			url = true
		default:
			return Account{}, fmt.Errorf("%w: character %d (%s) is not allowed", ErrInvalidAddress, i+1, quoteAt(s, i))
		}
	}
	if len(s) != friendlyLen {
		return Account{}, fmt.Errorf("%w: it must be %d characters long, got %d", ErrInvalidAddress, friendlyLen, len(s))
	}
	if std && url {
		// A real address uses one alphabet; a mix means it was mangled.
		return Account{}, fmt.Errorf("%w: it mixes '+' or '/' with '-' or '_'", ErrInvalidAddress)
	}
	enc := base64.RawURLEncoding
	if std {
		enc = base64.RawStdEncoding
	}
	// 48 characters are exactly 36 bytes, with no padding or spare bits.
	b, err := enc.DecodeString(s)
	if err != nil || len(b) != 36 {
		return Account{}, fmt.Errorf("%w: it is not valid base64", ErrInvalidAddress)
	}
	if flag := b[0] &^ flagTestnet; flag != flagBounceable && flag != flagNonBounceable {
		return Account{}, fmt.Errorf("%w: unknown flags byte 0x%02x", ErrInvalidAddress, b[0])
	}
	if b[1] != workchainBase && b[1] != workchainMaster {
		return Account{}, fmt.Errorf("%w: unknown workchain 0x%02x, expected 0 or -1", ErrInvalidAddress, b[1])
	}
	if crc16(b[:34]) != binary.BigEndian.Uint16(b[34:]) {
		return Account{}, fmt.Errorf("%w: the checksum does not match, check it for typos", ErrInvalidAddress)
	}
	a := Account{Workchain: int8(b[1])}
	copy(a.ID[:], b[2:34])
	return a, nil
}

// parseRaw reads the "<workchain>:<64 hex digits>" form.
func parseRaw(s string) (Account, error) {
	wc, digits, _ := strings.Cut(s, ":")
	if wc != "0" && wc != "-1" {
		return Account{}, fmt.Errorf("%w: the workchain before ':' must be 0 or -1", ErrInvalidAddress)
	}
	if len(digits) != rawHexLen {
		return Account{}, fmt.Errorf("%w: it must have %d hex digits after ':', got %d characters", ErrInvalidAddress, rawHexLen, len(digits))
	}
	for i := range len(digits) {
		c := digits[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return Account{}, fmt.Errorf("%w: character %d (%s) is not a hex digit", ErrInvalidAddress, len(wc)+2+i, quoteAt(digits, i))
		}
	}
	var a Account
	if wc == "-1" {
		a.Workchain = -1
	}
	_, _ = hex.Decode(a.ID[:], []byte(digits)) // 64 hex digits, checked above
	return a, nil
}

// quoteAt quotes the character starting at byte i of s for an error
// message. Every byte before i is ASCII, so i+1 is also its character number.
func quoteAt(s string, i int) string {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return strconv.QuoteRune(r)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), the checksum
// TON puts at the end of user-friendly addresses.
func crc16(data []byte) uint16 { return crc16ccitt.CCITT(0, data) }
