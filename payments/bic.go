package payments

import "strings"

// ParseBIC checks a BIC by the shape ISO 9362 gives it and returns it in
// capitals: 8 or 11 characters, 4 letters of the bank (business party
// prefix), 2 letters of the country, 2 letters or digits of the location,
// and optionally 3 letters or digits of the branch. Spaces are dropped.
func ParseBIC(s string) (string, error) {
	bic := strings.ToUpper(strings.Join(strings.Fields(s), ""))
	if len(bic) != 8 && len(bic) != 11 {
		return "", fieldErr("bic", "a BIC has 8 or 11 characters, this one %d", len(bic))
	}
	for i := range len(bic) {
		ok := isUpperAlnum(bic[i])
		if i < 6 {
			ok = isUpper(bic[i])
		}
		if !ok {
			if i < 6 {
				return "", fieldErr("bic", "a BIC begins with 4 letters of the bank and 2 letters of the country")
			}
			return "", fieldErr("bic", "a BIC's location and branch are letters and digits")
		}
	}
	return bic, nil
}
