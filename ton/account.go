package ton

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Account is what an address names: a workchain and a 32-byte account id.
// Two texts of one address (raw "0:<hex>" in either case, user-friendly
// bounceable or not, mainnet or testnet, base64 or base64url) are the same
// Account, so addresses are compared as Accounts, never as text.
type Account struct {
	Workchain int8
	ID        [32]byte
}

// String is the raw form, "<workchain>:<64 lower-case hex digits>".
func (a Account) String() string {
	return fmt.Sprintf("%d:%s", a.Workchain, hex.EncodeToString(a.ID[:]))
}

// Friendly is the user-friendly mainnet form (base64url with its checksum),
// bounceable (EQ…) or not (UQ…), as wallets show an address.
func (a Account) Friendly(bounceable bool) string {
	b := make([]byte, 36)
	b[0] = flagNonBounceable
	if bounceable {
		b[0] = flagBounceable
	}
	b[1] = byte(a.Workchain)
	copy(b[2:34], a.ID[:])
	c := crc16(b[:34])
	b[34], b[35] = byte(c>>8), byte(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// LinkForm is addr as a ton://transfer link names it: user-friendly and
// URL-safe. A raw address becomes the non-bounceable form (UQ…, as a wallet
// shows its own address, and paid even before the wallet is deployed); a
// user-friendly one keeps its flags, in the base64url alphabet. An address
// ValidateAddress refuses is an error.
func LinkForm(addr string) (string, error) {
	a, err := ParseAccount(addr)
	if err != nil {
		return "", err
	}
	if strings.Contains(addr, ":") {
		return a.Friendly(false), nil
	}
	return strings.NewReplacer("+", "-", "/", "_").Replace(addr), nil
}
