package payments

import (
	"regexp"
	"strings"
)

// vpaShape is a UPI virtual payment address as NPCI's UPI specification
// shapes it, name@handle: the account's part of letters, digits, '.', '-'
// and '_' (2 to 256 of them), and the payment service provider's handle, a
// letter followed by letters or digits ("okaxis", "ybl", "paytm").
var vpaShape = regexp.MustCompile(`^[a-z0-9._-]{2,256}@[a-z][a-z0-9]{1,63}$`)

// ParseUPI checks a UPI virtual payment address and returns it in small
// letters (addresses are not case sensitive; apps show them so).
func ParseUPI(s string) (string, error) {
	vpa := strings.ToLower(strings.TrimSpace(s))
	if !vpaShape.MatchString(vpa) {
		return "", fieldErr("upi", "a UPI address is name@handle: letters, digits, '.', '-' or '_' before the @ and the app's handle (letters and digits) after it")
	}
	return vpa, nil
}
