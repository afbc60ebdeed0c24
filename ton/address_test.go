package ton

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Well-known mainnet addresses: the TON Foundation wallet (bounceable and
// non-bounceable forms) and two masterchain system contracts.
const (
	foundation      = "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N"
	foundationNB    = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI"
	foundationRaw   = "0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8"
	electorFriendly = "Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF"
	configFriendly  = "Ef9VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVbxn"
)

// xmodemTable is a table-driven CRC-16/XMODEM, written independently of the
// bit-by-bit crc16 in the package so the tests do not check it against itself.
var xmodemTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			c = c<<1 ^ 0x1021*(c>>15)
		}
		t[i] = c
	}
	return t
}()

func testCRC(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ xmodemTable[byte(c>>8)^x]
	}
	return c
}

// build returns the user-friendly address for the given parts, computing
// the checksum here in the test.
func build(t testing.TB, flag, workchain byte, accountHex string, urlSafe bool) string {
	t.Helper()
	acct, err := hex.DecodeString(accountHex)
	require.NoError(t, err)
	require.Len(t, acct, 32)
	b := append([]byte{flag, workchain}, acct...)
	c := testCRC(b)
	b = append(b, byte(c>>8), byte(c))
	if urlSafe {
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return base64.RawStdEncoding.EncodeToString(b)
}

func TestCRC16(t *testing.T) {
	// 0x31C3 is the published CRC-16/XMODEM check value for "123456789".
	assert.Equal(t, uint16(0x31c3), crc16([]byte("123456789")))
	assert.Equal(t, uint16(0x31c3), testCRC([]byte("123456789")))
	assert.Equal(t, uint16(0), crc16(nil))
}

func TestBuildMatchesRealAddresses(t *testing.T) {
	// If our builder reproduces real addresses, the addresses it builds below
	// are realistic.
	acct := strings.TrimPrefix(foundationRaw, "0:")
	assert.Equal(t, foundation, build(t, 0x11, 0x00, acct, true))
	assert.Equal(t, foundationNB, build(t, 0x51, 0x00, acct, true))
	assert.Equal(t, electorFriendly, build(t, 0x11, 0xff, strings.Repeat("33", 32), true))
	assert.Equal(t, configFriendly, build(t, 0x11, 0xff, strings.Repeat("55", 32), true))
}

func TestValidateAddressValid(t *testing.T) {
	// 0xfb bytes encode to "+/" in standard base64 and "-_" in base64url.
	symbols := strings.Repeat("fb", 32)
	acct := strings.TrimPrefix(foundationRaw, "0:")
	tests := []struct {
		name, addr string
	}{
		{"foundation bounceable", foundation},
		{"foundation non-bounceable", foundationNB},
		{"elector", electorFriendly},
		{"config", configFriendly},
		{"real", "EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG"},
		{"standard alphabet", build(t, 0x11, 0x00, symbols, false)},
		{"url alphabet", build(t, 0x11, 0x00, symbols, true)},
		{"non-bounceable masterchain", build(t, 0x51, 0xff, symbols, true)},
		{"testnet bounceable", build(t, 0x91, 0x00, acct, true)},
		{"testnet non-bounceable", build(t, 0xd1, 0x00, acct, false)},
		{"zero account", build(t, 0x11, 0x00, strings.Repeat("00", 32), true)},
		{"raw", foundationRaw},
		{"raw upper case", strings.ToUpper(foundationRaw)},
		{"raw masterchain", "-1:" + strings.Repeat("33", 32)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, ValidateAddress(tt.addr), tt.addr)
		})
	}
	assert.Contains(t, tests[5].addr, "+")
	assert.Contains(t, tests[6].addr, "-")
}

func TestValidateAddressInvalid(t *testing.T) {
	acct := strings.TrimPrefix(foundationRaw, "0:")
	symbolsStd := build(t, 0x11, 0x00, strings.Repeat("fb", 32), false)
	tests := []struct {
		name, addr, msg string
	}{
		{"empty", "", "invalid TON address: it is empty"},
		{"too short", foundation[:47], "invalid TON address: it must be 48 characters long, got 47"},
		{"too long", foundation + "A", "invalid TON address: it must be 48 characters long, got 49"},
		{"padded", foundation + "==", "invalid TON address: character 49 ('=') is not allowed"},
		{"space", " " + foundation, "invalid TON address: character 1 (' ') is not allowed"},
		{"non-ASCII", "EQ\u00e9" + foundation[3:], "invalid TON address: character 3 ('é') is not allowed"},
		{"mixed alphabets", strings.Replace(symbolsStd, "+", "-", 1),
			"invalid TON address: it mixes '+' or '/' with '-' or '_'"},
		{"unknown flags", build(t, 0x12, 0x00, acct, true), "invalid TON address: unknown flags byte 0x12"},
		{"unknown testnet flags", build(t, 0x92, 0x00, acct, true), "invalid TON address: unknown flags byte 0x92"},
		{"unknown workchain", build(t, 0x11, 0x01, acct, true),
			"invalid TON address: unknown workchain 0x01, expected 0 or -1"},
		{"checksum", foundation[:47] + "O", "invalid TON address: the checksum does not match, check it for typos"},
		{"swapped characters", foundation[:10] + foundation[11:12] + foundation[10:11] + foundation[12:],
			"invalid TON address: the checksum does not match, check it for typos"},
		{"raw workchain 1", "1:" + acct, "invalid TON address: the workchain before ':' must be 0 or -1"},
		{"raw workchain 00", "00:" + acct, "invalid TON address: the workchain before ':' must be 0 or -1"},
		{"raw workchain +0", "+0:" + acct, "invalid TON address: the workchain before ':' must be 0 or -1"},
		{"raw no workchain", ":" + acct, "invalid TON address: the workchain before ':' must be 0 or -1"},
		{"raw short", "0:" + acct[:63], "invalid TON address: it must have 64 hex digits after ':', got 63 characters"},
		{"raw long", "0:" + acct + "0", "invalid TON address: it must have 64 hex digits after ':', got 65 characters"},
		{"raw two colons", "0:" + acct[:62] + ":0", "invalid TON address: character 65 (':') is not a hex digit"},
		{"raw not hex", "-1:g" + acct[1:], "invalid TON address: character 4 ('g') is not a hex digit"},
		{"raw 0x", "0:0x" + acct[2:], "invalid TON address: character 4 ('x') is not a hex digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateAddress(tt.addr)
			require.ErrorIs(t, err, ErrInvalidAddress)
			assert.EqualError(t, err, tt.msg)
		})
	}
}

func TestValidateAddressCatchesEverySingleCharacterChange(t *testing.T) {
	// CRC16 catches every error confined to 16 bits, and one base64
	// character is 6 bits, so no single-character typo can slip through.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/"
	for _, addr := range []string{foundation, foundationNB, electorFriendly} {
		require.NoError(t, ValidateAddress(addr))
		for i := range len(addr) {
			for _, c := range alphabet {
				if byte(c) == addr[i] {
					continue
				}
				typo := addr[:i] + string(c) + addr[i+1:]
				assert.ErrorIs(t, ValidateAddress(typo), ErrInvalidAddress, typo)
			}
		}
	}
}

func TestValidateAddressLongInputMessageIsShort(t *testing.T) {
	for _, s := range []string{strings.Repeat("A", 1<<20), "0:" + strings.Repeat("a", 1<<20)} {
		err := ValidateAddress(s)
		require.ErrorIs(t, err, ErrInvalidAddress)
		assert.Less(t, len(err.Error()), 100)
	}
}

func FuzzValidateAddress(f *testing.F) {
	for _, s := range []string{foundation, foundationNB, foundationRaw, electorFriendly, "", "0:", ":", "-1:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateAddress(s)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidAddress)
			return
		}
		// Anything accepted is one of the two documented forms.
		if wc, h, ok := strings.Cut(s, ":"); ok {
			require.Contains(t, []string{"0", "-1"}, wc)
			_, decErr := hex.DecodeString(h)
			require.NoError(t, decErr)
			require.Len(t, h, 64)
			return
		}
		require.Len(t, s, 48)
		b, decErr := base64.RawURLEncoding.DecodeString(strings.NewReplacer("+", "-", "/", "_").Replace(s))
		require.NoError(t, decErr)
		require.Equal(t, testCRC(b[:34]), uint16(b[34])<<8|uint16(b[35]))
	})
}
