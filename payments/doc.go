// Package payments is how people are paid outside TON: the payment handles
// a member gives (an IBAN with its BIC and account holder, a UPI address, a
// Pix key, a Revtag, a PayPal.me name, free text), each checked by its own
// rules, and the payloads that pay a settlement through them: the EPC QR
// code of a SEPA transfer (epc.go), Brazil's BR Code of a Pix payment
// (brcode.go), and the links of UPI, Revolut and PayPal.me (links.go).
//
// It is pure: no I/O, no clock. Every check returns a *FieldError naming the
// handle at fault, and every builder says when its rail cannot carry a
// payment (another currency, an amount out of range) rather than building
// a payload a banking app would refuse. docs/payments.md describes it for
// users.
package payments

import "fmt"

// FieldError is a handle refused: Field names it as the API's input does
// ("iban", "bic", "accountHolder", "upi", "pix", "pixCity", "revolut",
// "paypal", "other").
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}
