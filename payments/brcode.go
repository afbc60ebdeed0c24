package payments

import (
	"fmt"
	"strings"

	"github.com/fracti/api/internal/crc16"
	"github.com/fracti/api/money"
)

// Pix payments by the BR Code: the EMV QR Code merchant-presented payload
// (EMV QRCPS) as the Banco Central do Brasil's "Manual do BR Code" lays it
// out for a static Pix code with an amount.
const (
	brMaxName     = 25 // characters of the merchant (recipient) name, ID 59
	brMaxCity     = 15 // characters of the merchant city, ID 60
	brMaxTxID     = 25 // characters of the reference label (txid), ID 62-05
	brMaxTemplate = 99 // characters of a template's value
	brGUI         = "br.gov.bcb.pix"
	// brDefaultName and brDefaultCity stand in for a name or city with
	// nothing Latin in it: the payer's app shows the name the DICT holds
	// for the key anyway.
	brDefaultName = "RECEBEDOR"
	brDefaultCity = "BRASIL"
)

// brMaxMinor is the largest amount ID 54 can write: 13 characters, "9999999999.99".
const brMaxMinor = 999999999999

// PixPayment is a Pix payment to pay.
type PixPayment struct {
	Key    string // the recipient's Pix key
	Name   string // the recipient: their account holder's name, else their name
	City   string // the recipient's city; brDefaultCity when empty
	Amount money.Amount
	// Description is the payment's description (ID 26-02), written when the
	// merchant account template has room for it (99 characters in all).
	Description string
	// TxID is the reference label (ID 62-05): letters and digits, at most
	// 25 ("***" when empty, as static codes without one carry).
	TxID string
}

// BRCode is the BR Code payload of p: 00 payload format "01", 26 the Pix
// merchant account (00 the GUI br.gov.bcb.pix, 01 the key, 02 the
// reference when it fits), 52 category "0000", 53 currency "986" (BRL), 54
// the amount, 58 country "BR", 59 the name (at most 25 characters), 60 the
// city (at most 15), 62 the additional data with 05 the txid, and 63 the
// CRC16-CCITT-FALSE of everything before it, "6304" included, in four
// capital hex digits. It is ErrRail for another currency than BRL or an
// amount that is not positive or too large for ID 54.
func BRCode(p PixPayment) (string, error) {
	if p.Amount.Currency().Code() != "BRL" || p.Key == "" {
		return "", ErrRail
	}
	minor := p.Amount.Minor()
	if p.Amount.Sign() <= 0 || !minor.IsInt64() || minor.Int64() > brMaxMinor {
		return "", ErrRail
	}
	name := latinText(p.Name, brMaxName)
	if name == "" {
		name = brDefaultName
	}
	city := latinText(p.City, brMaxCity)
	if city == "" {
		city = brDefaultCity
	}
	account := emv("00", brGUI) + emv("01", p.Key)
	if d := latinText(p.Description, brMaxTemplate); d != "" && len(account)+len(emv("02", d)) <= brMaxTemplate {
		account += emv("02", d)
	}
	txid := brTxID(p.TxID)
	var b strings.Builder
	b.WriteString(emv("00", "01"))
	b.WriteString(emv("26", account))
	b.WriteString(emv("52", "0000"))
	b.WriteString(emv("53", "986"))
	b.WriteString(emv("54", p.Amount.String()))
	b.WriteString(emv("58", "BR"))
	b.WriteString(emv("59", name))
	b.WriteString(emv("60", city))
	b.WriteString(emv("62", emv("05", txid)))
	b.WriteString("6304")
	return b.String() + fmt.Sprintf("%04X", crc16CCITTFalse([]byte(b.String()))), nil
}

// brTxID is the letters and digits of s, the first 25 ("***" for none,
// as a static code without a txid carries).
func brTxID(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < brMaxTxID; i++ {
		if isLatinLetterOrDigit(s[i]) {
			b.WriteByte(s[i])
		}
	}
	if b.Len() == 0 {
		return "***"
	}
	return b.String()
}

// emv is one EMV data object: its ID, its value's length in two digits, and
// the value. Values are ASCII here (latinText, keys, digits), so bytes are
// characters.
func emv(id, value string) string { return fmt.Sprintf("%s%02d%s", id, len(value), value) }

// crc16CCITTFalse is CRC-16/CCITT-FALSE: polynomial 0x1021, initial value
// 0xFFFF, no reflection, no final XOR (the BR Code's ID 63).
func crc16CCITTFalse(data []byte) uint16 { return crc16.CCITT(0xFFFF, data) }
