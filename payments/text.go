package payments

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// latinText is s in the characters every SEPA bank takes (the SEPA basic
// Latin set of the EPC's rulebooks: a–z, A–Z, 0–9 and / - ? : ( ) . , ' +
// and space), which also suits a BR Code's name and city: accents are taken
// off (é → e, ç → c, ß → ss), other characters become spaces, runs of
// spaces one, and the result is cut to max characters at a word's end when
// it can be. It is "" when nothing Latin is left (a name in Cyrillic).
func latinText(s string, max int) string {
	var b strings.Builder
	space := true // no leading space
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // a combining accent, off its letter
		case r == 'ß':
			b.WriteString("ss")
		case r == 'æ' || r == 'Æ' || r == 'ø' || r == 'Ø' || r == 'đ' || r == 'Đ' || r == 'ł' || r == 'Ł':
			b.WriteString(map[rune]string{'æ': "ae", 'Æ': "AE", 'ø': "o", 'Ø': "O", 'đ': "d", 'Đ': "D", 'ł': "l", 'Ł': "L"}[r])
		case r < 0x80 && (isLatinLetterOrDigit(byte(r)) || strings.ContainsRune("/-?:().,'+", r)):
			b.WriteRune(r)
		default:
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
	}
	out := strings.TrimSpace(b.String())
	if len(out) > max {
		cut := out[:max]
		if i := strings.LastIndexByte(cut, ' '); i > max/2 && out[max] != ' ' {
			cut = cut[:i]
		}
		out = strings.TrimSpace(cut)
	}
	return out
}

func isLatinLetterOrDigit(c byte) bool {
	return isDigit(c) || isUpper(c) || ('a' <= c && c <= 'z')
}
