package notify

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEveryLanguageHasEveryText(t *testing.T) {
	for lang, texts := range catalog {
		require.Len(t, texts, len(catalog["en"]), lang)
		for m := range catalog["en"] {
			require.NotEmpty(t, texts[m], "%s %s", lang, m)
		}
	}
}

func TestLanguage(t *testing.T) {
	for code, want := range map[string]string{"": "en", "en": "en", "ru": "ru", "RU": "ru", "es-419": "es", "pt-br": "en", "de": "en"} {
		require.Equal(t, want, Language(code), code)
	}
}

// What people wrote is escaped; the texts' own markup is not.
func TestRenderEscapes(t *testing.T) {
	require.Equal(t, "➕ Tom &amp; Jerry added &lt;b&gt;pizza&lt;/b&gt;: 1.00 EUR, paid by Ann",
		render("en", msgExpenseCreated, "actor", "Tom & Jerry", "what", "<b>pizza</b>", "amount", "1.00 EUR", "payer", "Ann"))
	require.Equal(t, `<a href="tg://user?id=5">A &lt;3</a>`, mention("5", "A <3"))
	require.Equal(t, "<b>Flat</b>", chunks("<b>Flat</b>", nil)[0])
}

func TestChunksStayWithinTelegramsLength(t *testing.T) {
	line := string(make([]byte, 1000))
	out := chunks("head", []string{line, line, line, line, line})
	require.Len(t, out, 2)
	for _, c := range out {
		require.LessOrEqual(t, len(c), maxText)
	}
}
