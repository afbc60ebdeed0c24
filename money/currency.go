package money

import (
	"fmt"
	"sync"

	"golang.org/x/text/currency"
)

// Currency is a supported currency, a comparable value holding its upper-case
// code and its number of minor-unit digits; the zero value means no currency.
type Currency struct {
	code   string
	digits int
}

// tonDigits is fixed by the TON protocol (1 TON = 10^9 nanotons); TON is not
// in ISO 4217, so it cannot come from the CLDR data.
const tonDigits = 9

// currencies is built once, on first use, by asking x/text about every
// three-letter code (about 1 ms). After that a lookup is a map read with no
// allocation, which matters because we look currencies up on hot paths.
var currencies = sync.OnceValue(func() map[string]Currency {
	m := make(map[string]Currency, 320)
	var b [3]byte
	for x := byte('A'); x <= 'Z'; x++ {
		for y := byte('A'); y <= 'Z'; y++ {
			for z := byte('A'); z <= 'Z'; z++ {
				b = [3]byte{x, y, z}
				code := string(b[:])
				// XXX means "no currency" and XTS is reserved for testing:
				// neither is money a group can spend.
				if code == "XXX" || code == "XTS" {
					continue
				}
				u, err := currency.ParseISO(code)
				if err != nil {
					continue
				}
				scale, _ := currency.Standard.Rounding(u)
				m[code] = Currency{code: code, digits: scale}
			}
		}
	}
	m["TON"] = Currency{code: "TON", digits: tonDigits}
	return m
})

// LookupCurrency returns the currency with the given three-letter code, in
// any letter case, or an error wrapping ErrUnknownCurrency.
func LookupCurrency(code string) (Currency, error) {
	if len(code) == 3 {
		var b [3]byte
		ok := true
		for i := range 3 {
			c := code[i]
			switch {
			case 'A' <= c && c <= 'Z':
			case 'a' <= c && c <= 'z':
				c -= 'a' - 'A'
			default:
				ok = false
			}
			b[i] = c
		}
		if ok {
			if c, found := currencies()[string(b[:])]; found {
				return c, nil
			}
		}
	}
	return Currency{}, fmt.Errorf("%w %q: use an ISO 4217 code such as USD, or TON",
		ErrUnknownCurrency, truncate(code, 12))
}

// MustCurrency is like LookupCurrency but panics on an unknown code; use it
// for constants and tests, never for user input.
func MustCurrency(code string) Currency {
	c, err := LookupCurrency(code)
	if err != nil {
		panic("money: " + err.Error())
	}
	return c
}

// Code returns the upper-case currency code, such as "USD".
func (c Currency) Code() string { return c.code }

// Digits returns the number of minor-unit digits, such as 2 for USD or 0 for JPY.
func (c Currency) Digits() int { return c.digits }

// IsZero reports whether c is the zero Currency (no currency).
func (c Currency) IsZero() bool { return c.code == "" }

// String returns the currency code.
func (c Currency) String() string { return c.code }

// truncate shortens user input echoed in error messages, so a hostile client
// cannot make us build huge error strings.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
