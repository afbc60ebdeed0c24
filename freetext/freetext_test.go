package freetext_test

import (
	"testing"

	"github.com/fracti/api/freetext"
	"github.com/stretchr/testify/require"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"  Trip to Rome \u00a0", "Trip to Rome", nil},
		{"Cafe\u0301", "Café", nil},
		{"\u200B\uFEFFRoommates\u2060", "Roommates", nil},
		{"❤\uFE0F", "❤\uFE0F", nil}, // the variation selector gives the emoji its look
		{"👨\u200D👩\u200D👧", "👨\u200D👩\u200D👧", nil},
		{"שלום \u200F(2024)", "שלום \u200F(2024)", nil},
		{"", "", nil},
		{"   ", "", nil},
		{"\u200B", "", nil},
		{"a\x00b", "", freetext.ErrControl},
		{"a\nb", "", freetext.ErrControl},
		{"a\u0085b", "", freetext.ErrControl},
		{"\u202Egnp.exe", "", freetext.ErrBidi},
		{"x\u2067y", "", freetext.ErrBidi},
		{"\u0301\u0301", "", freetext.ErrInvisible},
		{"\u3164\u2800", "", nil}, // all blank: trimmed away
		{"\xff", "", freetext.ErrInvalidUTF8},
	} {
		got, err := freetext.Clean(tc.in)
		require.ErrorIs(t, err, tc.err, "%q", tc.in)
		require.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"\u202Egnp.exe":   "gnp.exe",
		"Al\x00i\nce":     "Alice",
		"  Bob  ":         "Bob",
		"\u3164\u200B":    "",
		"\xffZoë\u0308":   "Zoë\u0308",
		"Cafe\u0301 club": "Café club",
	} {
		require.Equal(t, want, freetext.Sanitize(in), "%q", in)
	}
}

func TestLen(t *testing.T) {
	require.Equal(t, 4, freetext.Len("Café"))
	require.Equal(t, 2, freetext.Len("❤\uFE0F"))
}
