package payments

import (
	"regexp"
	"strings"

	"github.com/fracti/api/freetext"
)

// Handles are the ways a person is paid besides TON (whose wallet is the
// membership's own, ton/). Empty strings are handles not given.
type Handles struct {
	IBAN          string // electronic form
	BIC           string // optional, only with an IBAN
	AccountHolder string // optional, only with an IBAN: the name on the account
	UPI           string // a UPI virtual payment address
	Pix           string // a Pix key, as the DICT stores it
	PixType       PixKeyType
	PixCity       string // optional, only with a Pix key: the BR Code's city
	Revolut       string // a Revtag, without the @
	PayPal        string // a PayPal.me name
	Other         string // free text, shown as it is
}

// IsZero reports whether no handle is given.
func (h Handles) IsZero() bool { return h == Handles{} }

// Limits of the handles that are free text.
const (
	MaxOther         = 200 // characters of the free "other" text
	MaxAccountHolder = 70  // characters of an account holder's name: the EPC QR code's limit
	MaxPixCity       = 50  // characters of a Pix key's city as given (a BR Code shows its first 15, brcode.go)
)

// Normalize checks every handle given and returns them in their stored
// forms (see each Parse function), or the first one refused as a
// *FieldError. A BIC, an account holder or a Pix city alone, without the
// IBAN or key they belong to, is refused.
func Normalize(h Handles) (Handles, error) {
	var err error
	out := Handles{}
	if strings.TrimSpace(h.IBAN) != "" {
		if out.IBAN, err = ParseIBAN(h.IBAN); err != nil {
			return Handles{}, err
		}
	}
	if strings.TrimSpace(h.BIC) != "" {
		if out.IBAN == "" {
			return Handles{}, fieldErr("bic", "a BIC is given with an IBAN")
		}
		if out.BIC, err = ParseBIC(h.BIC); err != nil {
			return Handles{}, err
		}
	}
	if out.AccountHolder, err = cleanText("accountHolder", h.AccountHolder, MaxAccountHolder); err != nil {
		return Handles{}, err
	}
	if out.AccountHolder != "" && out.IBAN == "" {
		return Handles{}, fieldErr("accountHolder", "an account holder is given with an IBAN")
	}
	if strings.TrimSpace(h.UPI) != "" {
		if out.UPI, err = ParseUPI(h.UPI); err != nil {
			return Handles{}, err
		}
	}
	if strings.TrimSpace(h.Pix) != "" {
		if out.Pix, out.PixType, err = ParsePixKey(h.Pix); err != nil {
			return Handles{}, err
		}
	}
	if out.PixCity, err = cleanText("pixCity", h.PixCity, MaxPixCity); err != nil {
		return Handles{}, err
	}
	if out.PixCity != "" && out.Pix == "" {
		return Handles{}, fieldErr("pixCity", "a city is given with a Pix key")
	}
	if strings.TrimSpace(h.Revolut) != "" {
		if out.Revolut, err = ParseRevtag(h.Revolut); err != nil {
			return Handles{}, err
		}
	}
	if strings.TrimSpace(h.PayPal) != "" {
		if out.PayPal, err = ParsePayPalMe(h.PayPal); err != nil {
			return Handles{}, err
		}
	}
	if out.Other, err = cleanText("other", h.Other, MaxOther); err != nil {
		return Handles{}, err
	}
	return out, nil
}

// cleanText is free text checked as freetext.Clean does, at most max characters.
func cleanText(field, s string, max int) (string, error) {
	t, err := freetext.Clean(s)
	if err != nil {
		return "", fieldErr(field, "%s", err.Error())
	}
	if n := freetext.Len(t); n > max {
		return "", fieldErr(field, "at most %d characters, this is %d", max, n)
	}
	return t, nil
}

// revtagShape is a Revtag as revolut.me links carry it: small letters and
// digits, with '.', '_' or '-' between them, 3 to 32 characters. Revolut
// publishes no grammar; this is the widest form its links have shown.
var revtagShape = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9._-]{1,30})[a-z0-9]$`)

// ParseRevtag checks a Revolut Revtag and returns it without its '@', in
// small letters (Revtags are not case sensitive). A revolut.me link is
// accepted for its tag.
func ParseRevtag(s string) (string, error) {
	tag := strings.ToLower(strings.TrimSpace(s))
	for _, prefix := range []string{"https://", "http://", "www.", "revolut.me/", "@"} {
		tag = strings.TrimPrefix(tag, prefix)
	}
	if !revtagShape.MatchString(tag) {
		return "", fieldErr("revolut", "a Revtag is 3 to 32 letters and digits ('.', '_' or '-' between them), as in revolut.me/<tag>")
	}
	return tag, nil
}

// payPalMeShape is a PayPal.me name by PayPal's rules: letters and digits
// only (no symbols, dashes or spaces), at most 20 characters.
var payPalMeShape = regexp.MustCompile(`^[A-Za-z0-9]{1,20}$`)

// ParsePayPalMe checks a PayPal.me name and returns it as written (names
// are not case sensitive; PayPal suggests capitals for readability). A
// paypal.me link is accepted for its name.
func ParsePayPalMe(s string) (string, error) {
	name := strings.TrimSpace(s)
	for _, prefix := range []string{"https://", "http://", "www.", "paypal.me/", "PayPal.Me/", "PAYPAL.ME/", "@"} {
		name = strings.TrimPrefix(name, prefix)
	}
	name = strings.TrimSuffix(name, "/")
	if !payPalMeShape.MatchString(name) {
		return "", fieldErr("paypal", "a PayPal.me name is 1 to 20 letters and digits, without symbols, dashes or spaces")
	}
	return name, nil
}
