// Package crc16 is the CRC-16 with the CCITT polynomial 0x1021, MSB first,
// from a given initial value, no final XOR: TON's addresses use it from 0
// (CRC-16/XMODEM), Brazil's BR Codes from 0xFFFF (CRC-16/CCITT-FALSE).
package crc16

// CCITT is the CRC-16 of data with polynomial 0x1021 from init.
func CCITT(init uint16, data []byte) uint16 {
	crc := init
	for _, b := range data {
		crc ^= uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
