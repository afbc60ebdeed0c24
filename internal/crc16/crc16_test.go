package crc16

import "testing"

// The check values of the CRC catalogue: "123456789".
func TestCCITT(t *testing.T) {
	for _, tc := range []struct {
		name string
		init uint16
		want uint16
	}{
		{"CRC-16/XMODEM", 0, 0x31C3},
		{"CRC-16/CCITT-FALSE", 0xFFFF, 0x29B1},
	} {
		if got := CCITT(tc.init, []byte("123456789")); got != tc.want {
			t.Errorf("%s: %#04x, want %#04x", tc.name, got, tc.want)
		}
	}
}
