package payments

import (
	"net/url"
	"slices"
	"strings"

	"github.com/fracti/api/money"
)

// UPILink is the UPI deep link of NPCI's linking specification that pays
// vpa amount (INR only) with the note: upi://pay?pa=<vpa>&pn=<name>&am=<amount>&cu=INR&tn=<note>.
// Each value is percent-encoded (a space as %20, never '+', which UPI apps
// read as a plus); '@' stays as it is in the address, as apps expect. It
// is ErrRail for another currency or an amount that is not positive.
func UPILink(vpa, name string, amount money.Amount, note string) (string, error) {
	if amount.Currency().Code() != "INR" || amount.Sign() <= 0 || vpa == "" {
		return "", ErrRail
	}
	q := []string{"pa=" + upiEscape(vpa)}
	if name = latinText(name, 50); name != "" {
		q = append(q, "pn="+upiEscape(name))
	}
	q = append(q, "am="+amount.String(), "cu=INR", "tn="+upiEscape(latinText(note, 50)))
	return "upi://pay?" + strings.Join(q, "&"), nil
}

// upiEscape percent-encodes all but RFC 3986's unreserved characters and '@'.
func upiEscape(s string) string {
	return strings.ReplaceAll(url.PathEscape(s), "%40", "@")
}

// payPalCurrencies are the currencies PayPal takes payments in (its list
// of supported currencies): a PayPal.me link in any other is refused.
var payPalCurrencies = []string{
	"AUD", "BRL", "CAD", "CNY", "CZK", "DKK", "EUR", "HKD", "HUF", "ILS", "JPY", "MYR", "MXN",
	"TWD", "NZD", "NOK", "PHP", "PLN", "GBP", "SGD", "SEK", "CHF", "THB", "USD",
}

// PayPalLink is the PayPal.me link that asks for amount:
// https://paypal.me/<name>/<amount><currency>, as https://paypal.me/Alice/12.50EUR.
// PayPal.me links carry no note. It is ErrRail for a currency PayPal does
// not take or an amount that is not positive.
func PayPalLink(name string, amount money.Amount) (string, error) {
	code := amount.Currency().Code()
	if name == "" || amount.Sign() <= 0 || !slices.Contains(payPalCurrencies, code) {
		return "", ErrRail
	}
	return "https://paypal.me/" + url.PathEscape(name) + "/" + amount.String() + code, nil
}

// revolutCurrencies are the currencies a Revolut account holds and takes
// transfers in: a revolut.me link in any other is refused.
var revolutCurrencies = []string{
	"AED", "AUD", "BGN", "CAD", "CHF", "CZK", "DKK", "EUR", "GBP", "HKD", "HUF", "ILS", "ISK", "JPY",
	"MXN", "NOK", "NZD", "PLN", "QAR", "RON", "RSD", "SAR", "SEK", "SGD", "THB", "TRY", "USD", "ZAR",
}

// RevolutLink is the revolut.me link that asks for amount with the note:
// https://revolut.me/<tag>?amount=<minor units>&currency=<code>&note=<note>,
// the amount in minor units as revolut.me reads it (12.50 EUR is 1250). It
// is ErrRail for a currency Revolut does not hold or an amount that is not
// positive.
func RevolutLink(tag string, amount money.Amount, note string) (string, error) {
	code := amount.Currency().Code()
	if tag == "" || amount.Sign() <= 0 || !slices.Contains(revolutCurrencies, code) {
		return "", ErrRail
	}
	q := url.Values{"amount": {amount.Minor().String()}, "currency": {code}, "note": {note}}
	return "https://revolut.me/" + url.PathEscape(tag) + "?" + q.Encode(), nil
}
