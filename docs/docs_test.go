package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// The documentation a newcomer reads: README.md and every page of docs/
// (this directory).
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages, "docs/ has no pages")
	return append([]string{"../README.md"}, pages...)
}

var (
	fence     = regexp.MustCompile("(?m)^```[^\n]*\n(?s:.*?)^```[^\n]*$")
	codeSpan  = regexp.MustCompile("`[^`\n]*`")
	mdLink    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// prose is a page without its code blocks, where links are not links.
func prose(page string) string {
	return fence.ReplaceAllString(page, "")
}

// anchors are the fragment ids GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as hyphens, a repeated one suffixed -1, -2, ….
func anchors(page string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(prose(page), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			out[id+"-"+strconv.Itoa(n)] = true
		} else {
			out[id] = true
		}
		seen[id]++
	}
	return out
}

// TestDocLinks: every relative link in README.md and docs/ names a file or
// directory of the repository, and every #anchor a heading of its page.
func TestDocLinks(t *testing.T) {
	for _, page := range docPages(t) {
		body, err := os.ReadFile(page)
		require.NoError(t, err)
		text := codeSpan.ReplaceAllString(prose(string(body)), "")
		links := mdLink.FindAllStringSubmatch(text, -1)
		for _, m := range links {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
				_, err := os.Stat(dest)
				require.NoError(t, err, "%s links to %s, which does not exist", page, target)
			}
			if anchor == "" {
				continue
			}
			destBody, err := os.ReadFile(dest)
			require.NoError(t, err, "%s links to an anchor in %s, which is not a page", page, target)
			require.True(t, anchors(string(destBody))[anchor], "%s links to %s: %s has no heading #%s", page, target, dest, anchor)
		}
	}
}

// TestDocLinksFindBreaks: the link check fails on a missing file and a
// missing anchor, so a broken link cannot pass unseen.
func TestDocLinksFindBreaks(t *testing.T) {
	page := "# Title\n\n## Two words: here\n\n## Two words: here\n"
	got := anchors(page)
	require.Equal(t, map[string]bool{"title": true, "two-words-here": true, "two-words-here-1": true}, got)
	require.Empty(t, mdLink.FindAllString(prose("```\n[a](nowhere.md)\n```\n"), -1), "links in code blocks are not links")
}
