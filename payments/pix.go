package payments

import (
	"regexp"
	"strings"
)

// PixKeyType is the kind of a Pix key (chave Pix), as the Banco Central
// names them (DICT): a key of each kind has its own form.
type PixKeyType string

// The kinds of Pix keys.
const (
	PixCPF    PixKeyType = "CPF"    // a person's tax number: 11 digits
	PixCNPJ   PixKeyType = "CNPJ"   // a company's tax number: 14 characters
	PixEmail  PixKeyType = "EMAIL"  // an e-mail address, at most 77 characters
	PixPhone  PixKeyType = "PHONE"  // a Brazilian mobile number, +55 in E.164
	PixRandom PixKeyType = "RANDOM" // a random key (EVP): a UUID
)

var (
	pixEmailShape  = regexp.MustCompile(`^[a-z0-9.!#$%&'*+/=?^_{|}~-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$`)
	pixPhoneShape  = regexp.MustCompile(`^\+55[1-9][0-9][0-9]{8,9}$`)
	pixRandomShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	taxNumberMarks = strings.NewReplacer(".", "", "-", "", "/", "", " ", "")
)

// ParsePixKey tells the kind of a Pix key by its form and returns the key
// as the DICT stores it: a phone number (+55, the area code and 8 or 9
// digits; spaces, dashes and parentheses dropped) when it begins with '+',
// an e-mail (in small letters) when it holds '@', a random key (a UUID, in
// small letters) when it has a UUID's form, else a CPF (11 digits) or CNPJ
// (14 characters: digits, or since July 2026 letters too in the first 12),
// dots, dashes and slashes dropped, and their check digits verified.
func ParsePixKey(s string) (string, PixKeyType, error) {
	key := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(key, "+"):
		phone := strings.NewReplacer(" ", "", "-", "", "(", "", ")", "").Replace(key)
		if !pixPhoneShape.MatchString(phone) {
			return "", "", fieldErr("pix", "a phone key is +55, the area code and the number (8 or 9 digits), as +5511987654321")
		}
		return phone, PixPhone, nil
	case strings.Contains(key, "@"):
		email := strings.ToLower(key)
		if len(email) > 77 || !pixEmailShape.MatchString(email) {
			return "", "", fieldErr("pix", "an e-mail key is an address of at most 77 characters")
		}
		return email, PixEmail, nil
	case pixRandomShape.MatchString(strings.ToLower(key)):
		return strings.ToLower(key), PixRandom, nil
	}
	tax := strings.ToUpper(taxNumberMarks.Replace(key))
	switch len(tax) {
	case 11:
		if !validCPF(tax) {
			return "", "", fieldErr("pix", "not a valid CPF: its check digits do not match")
		}
		return tax, PixCPF, nil
	case 14:
		if !validCNPJ(tax) {
			return "", "", fieldErr("pix", "not a valid CNPJ: its check digits do not match")
		}
		return tax, PixCNPJ, nil
	}
	return "", "", fieldErr("pix", "a Pix key is a CPF, a CNPJ, an e-mail, a phone number (+55…) or a random key (UUID)")
}

// validCPF checks a CPF's two check digits (mod 11, weights 10…2 and
// 11…2); one digit repeated eleven times passes them and is no CPF.
func validCPF(cpf string) bool {
	d := make([]int, 11)
	for i := range 11 {
		if !isDigit(cpf[i]) {
			return false
		}
		d[i] = int(cpf[i] - '0')
	}
	if strings.Count(cpf, cpf[:1]) == 11 {
		return false
	}
	for n := 9; n <= 10; n++ {
		sum := 0
		for i := range n {
			sum += d[i] * (n + 1 - i)
		}
		if check := sum * 10 % 11 % 10; check != d[n] {
			return false
		}
	}
	return true
}

// validCNPJ checks a CNPJ's two check digits (mod 11, weights 5…2 9…2 and
// 6…2 9…2). Each of the first 12 characters counts as its ASCII code less
// 48, so that the alphanumeric CNPJ of July 2026 and the numeric one check
// the same way; the check digits are digits.
func validCNPJ(cnpj string) bool {
	v := make([]int, 14)
	for i := range 14 {
		c := cnpj[i]
		if !isDigit(c) && (i >= 12 || !isUpper(c)) {
			return false
		}
		v[i] = int(c) - '0'
	}
	if strings.Count(cnpj, cnpj[:1]) == 14 {
		return false
	}
	weights := []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	for n := 12; n <= 13; n++ {
		sum := 0
		for i := range n {
			sum += v[i] * weights[13-n+i]
		}
		check := 11 - sum%11
		if check >= 10 {
			check = 0
		}
		if check != v[n] {
			return false
		}
	}
	return true
}
