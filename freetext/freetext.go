// Package freetext cleans the text people type or bring with them (group
// titles, descriptions, categories, names) so that what one member writes
// displays as written on every other member's screen: no control
// characters, no bidirectional overrides that reverse what follows
// ("\u202Egnp.exe" showing as "exe.png"), nothing made only of invisible
// characters, and one Unicode form (NFC) so that equal-looking strings are
// equal.
package freetext

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Reasons Clean refuses a string.
var (
	ErrInvalidUTF8 = errors.New("is not valid UTF-8")
	ErrControl     = errors.New("must not contain control characters (such as NUL, tabs or line breaks)")
	ErrBidi        = errors.New("must not contain bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)")
	ErrInvisible   = errors.New("must contain something visible")
)

// Clean normalizes s to NFC and trims blank and invisible characters from
// both ends. It refuses s (with one of the errors above) when it is not
// UTF-8, holds a control character or a bidirectional override, or is not
// empty but shows nothing. An empty or all-blank s gives "" and no error:
// whether empty is allowed is the caller's rule.
func Clean(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrInvalidUTF8
	}
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return "", ErrControl
		case isBidiControl(r):
			return "", ErrBidi
		}
	}
	s = strings.TrimFunc(norm.NFC.String(s), blank)
	if s != "" && !hasVisible(s) {
		return "", ErrInvisible
	}
	return s, nil
}

// Sanitize is Clean for text we must accept as it comes (a Telegram user's
// name): it drops what Clean would refuse instead of refusing it, and gives
// "" when nothing visible is left.
func Sanitize(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isBidiControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimFunc(norm.NFC.String(s), blank)
	if !hasVisible(s) {
		return ""
	}
	return s
}

// Len is the length of s in characters (code points), as limits count it.
func Len(s string) int { return utf8.RuneCountInString(s) }

// isBidiControl reports the explicit embeddings, overrides and isolates,
// which change the direction of the text after them. The implicit marks
// (LRM, RLM, ALM) stay allowed: right-to-left scripts need them.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// blank is trimmed from both ends: white space and characters that draw
// nothing (zero-width spaces, fillers), but not variation selectors, which
// give an emoji its look.
func blank(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || r == '\u2800'
}

// hasVisible reports whether s has a character that draws something by
// itself: not a space, not a format or default-ignorable character (such as
// a zero-width joiner or a Hangul filler), not a blank braille pattern and
// not a combining mark on its own.
func hasVisible(s string) bool {
	for _, r := range s {
		if unicode.IsGraphic(r) && !blank(r) && !unicode.Is(unicode.M, r) &&
			!unicode.Is(unicode.Variation_Selector, r) {
			return true
		}
	}
	return false
}
