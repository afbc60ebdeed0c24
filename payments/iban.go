package payments

import (
	"math/big"
	"strings"
)

// ibanLengths is the length of an IBAN in each country that has one, from
// the SWIFT IBAN registry: a country not listed has no IBAN (the
// registry's experimental countries neither).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
	"LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28,
	"NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
	// The territories the registry lists under Finland (Åland) and France,
	// whose IBANs may carry their own country code.
	"AX": 18, "BL": 27, "GF": 27, "GP": 27, "MF": 27, "MQ": 27, "NC": 27, "PF": 27, "PM": 27, "RE": 27,
	"TF": 27, "WF": 27, "YT": 27,
}

// ParseIBAN checks an IBAN and returns its electronic form (no spaces,
// capital letters): the country's length from the registry, letters and
// digits only, check digits 02–98 and the ISO 13616 (ISO 7064 MOD 97-10)
// check. Spaces and small letters, as people copy IBANs from their
// statements, are accepted.
func ParseIBAN(s string) (string, error) {
	iban := strings.ToUpper(strings.Join(strings.Fields(s), ""))
	if len(iban) < 4 {
		return "", fieldErr("iban", "an IBAN begins with a country code and two check digits")
	}
	for i := range len(iban) {
		if !isUpperAlnum(iban[i]) {
			return "", fieldErr("iban", "an IBAN holds only letters and digits")
		}
	}
	country := iban[:2]
	want, ok := ibanLengths[country]
	if !ok {
		return "", fieldErr("iban", "%q is not a country with IBANs (SWIFT IBAN registry)", country)
	}
	if len(iban) != want {
		return "", fieldErr("iban", "an IBAN of %s has %d characters, this one %d", country, want, len(iban))
	}
	if !isDigit(iban[2]) || !isDigit(iban[3]) || iban[2:4] < "02" || iban[2:4] > "98" {
		return "", fieldErr("iban", "the check digits (3rd and 4th characters) must be 02 to 98")
	}
	if mod97(iban[4:]+iban[:4]) != 1 {
		return "", fieldErr("iban", "the check digits do not match: a character is mistyped")
	}
	return iban, nil
}

// mod97 is the ISO 7064 MOD 97-10 remainder of s, letters counted A=10 … Z=35.
func mod97(s string) int64 {
	var digits strings.Builder
	for i := range len(s) {
		c := s[i]
		if isDigit(c) {
			digits.WriteByte(c)
		} else {
			digits.WriteString(big.NewInt(int64(c-'A') + 10).String())
		}
	}
	n, _ := new(big.Int).SetString(digits.String(), 10)
	return new(big.Int).Mod(n, big.NewInt(97)).Int64()
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isUpper(c byte) bool      { return 'A' <= c && c <= 'Z' }
func isUpperAlnum(c byte) bool { return isDigit(c) || isUpper(c) }
