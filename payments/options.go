package payments

import (
	"errors"

	"github.com/fracti/api/money"
)

// Kind is a way to pay: a rail.
type Kind string

// The rails. TON's link is the TON payments' own (graph/ton.go): the
// caller makes it and gives it as Payment.TONLink.
const (
	KindSEPA    Kind = "SEPA"
	KindUPI     Kind = "UPI"
	KindPix     Kind = "PIX"
	KindRevolut Kind = "REVOLUT"
	KindPayPal  Kind = "PAYPAL"
	KindTON     Kind = "TON"
	KindOther   Kind = "OTHER"
)

// Option is one way to pay a settlement: a link to open (URL), a payload to
// show as a QR code (QRPayload), or both; Text is the free text of an
// OTHER option, shown as it is.
type Option struct {
	Kind      Kind
	URL       string
	QRPayload string
	Text      string
}

// Payment is what the options pay: the recipient's handles and name, the
// amount and the settlement's reference.
type Payment struct {
	Handles Handles
	// Name is the recipient's display name. Their account holder's name,
	// when given, stands for them instead in every payload that names them
	// (the EPC code, the BR Code, the UPI link).
	Name      string
	Amount    money.Amount
	Reference string
	// TONLink is the ton://transfer link that pays it, when it is in TON
	// and the recipient has a wallet; empty otherwise.
	TONLink string
}

// Options are the ways to pay p, in a fixed order (SEPA, UPI, PIX,
// REVOLUT, PAYPAL, TON, OTHER): one for each handle whose rail carries the
// payment's currency and amount. An error is one no payment could cause (a
// builder failing otherwise than by refusing the rail).
func Options(p Payment) ([]Option, error) {
	var out []Option
	add := func(kind Kind, payload string, err error, qr bool) error {
		switch {
		case errors.Is(err, ErrRail):
			return nil
		case err != nil:
			return err
		case qr:
			out = append(out, Option{Kind: kind, QRPayload: payload})
		default:
			out = append(out, Option{Kind: kind, URL: payload, QRPayload: payload})
		}
		return nil
	}
	h := p.Handles
	holder := h.AccountHolder
	if holder == "" {
		holder = p.Name
	}
	if h.IBAN != "" {
		epc, err := EPC(EPCTransfer{Name: holder, IBAN: h.IBAN, BIC: h.BIC, Amount: p.Amount, Text: p.Reference})
		if err := add(KindSEPA, epc, err, true); err != nil {
			return nil, err
		}
	}
	if h.UPI != "" {
		link, err := UPILink(h.UPI, holder, p.Amount, p.Reference)
		if err := add(KindUPI, link, err, false); err != nil {
			return nil, err
		}
	}
	if h.Pix != "" {
		code, err := BRCode(PixPayment{Key: h.Pix, Name: holder, City: h.PixCity, Amount: p.Amount,
			Description: p.Reference, TxID: p.Reference})
		if err := add(KindPix, code, err, true); err != nil {
			return nil, err
		}
	}
	if h.Revolut != "" {
		link, err := RevolutLink(h.Revolut, p.Amount, p.Reference)
		if err := add(KindRevolut, link, err, false); err != nil {
			return nil, err
		}
	}
	if h.PayPal != "" {
		link, err := PayPalLink(h.PayPal, p.Amount)
		if err := add(KindPayPal, link, err, false); err != nil {
			return nil, err
		}
	}
	if p.TONLink != "" {
		out = append(out, Option{Kind: KindTON, URL: p.TONLink, QRPayload: p.TONLink})
	}
	if h.Other != "" {
		out = append(out, Option{Kind: KindOther, Text: h.Other})
	}
	return out, nil
}
