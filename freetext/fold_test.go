package freetext_test

import (
	"testing"

	"github.com/fracti/api/freetext"
	"github.com/stretchr/testify/require"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"CAFÉ":         "cafe",
		"Cafe\u0301":   "cafe",
		"Straße":       "strasse",
		"ΣΊΣΥΦΟΣ":      "σισυφοσ",
		"Ёлка":         "елка",
		"ＡＢＣ１２":        "abc12",
		"ﬁsh":          "fish",
		"ガイド":          "ガイド", // kana keep their voicing
		"ｶﾞｲﾄﾞ":        "ガイド", // half-width kana become full-width
		"Ångström":     "angstrom",
		"İstanbul":     "istanbul",
		"Crème brûlée": "creme brulee",
		"ข้าว":         "ข้าว", // Thai tones make other words
		"שָׁלוֹם":      "שלום",
		"नमस्ते":       "नमस्ते",
	} {
		require.Equal(t, want, freetext.Fold(in), "%q", in)
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"Dinner at Café Roma!": {"dinner", "at", "cafe", "roma"},
		"  ":                   nil,
		"Ужин в кафе, 2 чел.":  {"ужин", "в", "кафе", "2", "чел"},
		"東京タワーtour":            {"東京タワー", "tour"},
		"don't":                {"don", "t"},
		"ラーメン屋 Ramen":          {"ラーメン屋", "ramen"},
		"עוגה (2024)":          {"עוגה", "2024"},
	} {
		require.Equal(t, want, freetext.Words(in), "%q", in)
	}
}

func TestMatches(t *testing.T) {
	text := freetext.Words("Café Roma: ужин, 東京のラーメン, ข้าวผัด")
	for q, want := range map[string]bool{
		"CAFE":        true,
		"caf":         true, // a word's beginning
		"afe":         false,
		"roma cafe":   true, // every word, in any order
		"roma pizza":  false,
		"УЖИН":        true,
		"ужи":         true,
		"ラーメン":        true, // anywhere in text written without spaces
		"東京":          true,
		"京の":          true,
		"ข้าว":        true,
		"ผัด":         true,
		"":            true,
		"café, roma!": true,
	} {
		require.Equal(t, want, freetext.Matches(freetext.Words(q), text), "%q", q)
	}
	require.Equal(t, []string{"pizza"}, freetext.Unmatched(freetext.Words("roma pizza"), text))
}
