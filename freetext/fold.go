package freetext

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Searching text (an expense's description and comments): both the text
// and the query are folded alike and cut into words, and a query matches
// when each of its words begins a word of the text. Folding makes the
// comparison blind to case ("CAFE" is "cafe", "Straße" is "strasse"),
// accents ("café" is "cafe", "ёлка" is "елка", Hebrew and Arabic vowel
// points) and compatibility forms (full-width "ＡＢＣ" is "abc", "ﬁ" is
// "fi", half-width kana are kana), in every script. Marks that make another
// word rather than an accent stay: kana's voicing (が is not か), the vowel
// signs and tones of Indic and Thai scripts. Scripts written without spaces between words
// (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) have no word starts to
// find, so in them a query word may begin anywhere in a run of text.

// folder folds case by Unicode's full case folding; it holds no state, but
// a cases.Caser may not be used by two goroutines at once.
func folder() cases.Caser { return cases.Fold() }

// Fold is s as a search compares it (see above).
func Fold(s string) string {
	s = norm.NFKD.String(folder().String(s))
	accented := false // the last letter is of a script whose marks are accents
	s = strings.Map(func(r rune) rune {
		if !unicode.Is(unicode.Mn, r) {
			accented = unicode.In(r, accentScripts...)
			return r
		}
		if accented {
			return -1
		}
		return r
	}, s)
	return norm.NFC.String(s)
}

// accentScripts are the scripts whose combining marks are accents or
// optional vowel points, dropped by Fold: in others (kana's voicing, the
// vowel signs and tones of Indic and Thai scripts) a mark makes another
// word, and stays.
var accentScripts = []*unicode.RangeTable{unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Hebrew, unicode.Arabic}

// unspaced reports the scripts written without spaces between words.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) ||
		r == 'ー' // the katakana long vowel mark is of no script of its own
}

// wordRune reports what words are made of: letters, digits and the marks
// left after folding.
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// Words are the folded words of s: its runs of letters and digits, cut
// also where text without spaces meets text with them ("東京tower" is two
// words).
func Words(s string) []string {
	var words []string
	var b strings.Builder
	prevUnspaced := false
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range Fold(s) {
		if !wordRune(r) {
			flush()
			continue
		}
		u := unspaced(r) || (unicode.IsMark(r) && prevUnspaced)
		if u != prevUnspaced {
			flush()
		}
		prevUnspaced = u
		b.WriteRune(r)
	}
	flush()
	return words
}

// Matches reports whether every word of query (folded words, as Words
// gives) begins a word of text (Words of what is searched): a prefix, or,
// for a word of a script without spaces, anywhere in one. An empty query
// matches everything.
func Matches(query, text []string) bool { return len(Unmatched(query, text)) == 0 }

// Unmatched are the words of query that begin no word of text, as Matches
// decides: what is left to find elsewhere (an expense's comments, when its
// description has not all of them).
func Unmatched(query, text []string) []string {
	var out []string
	for _, q := range query {
		if !matchesWord(q, text) {
			out = append(out, q)
		}
	}
	return out
}

// matchesWord reports whether q begins a word of text (or, unspaced, lies in one).
func matchesWord(q string, text []string) bool {
	first := []rune(q)[0]
	for _, w := range text {
		if strings.HasPrefix(w, q) || (unspaced(first) && strings.Contains(w, q)) {
			return true
		}
	}
	return false
}
