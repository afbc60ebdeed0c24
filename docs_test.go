package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// The documentation a newcomer reads: README.md and every page of docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages, "docs/ has no pages")
	return append([]string{"README.md"}, pages...)
}

var (
	fence      = regexp.MustCompile("(?m)^```[^\n]*\n(?s:.*?)^```[^\n]*$")
	codeSpan   = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdHeading  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	settingRow = regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]+)` \\|")
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

// settingsRead are the environment variables the server reads: every name
// loadConfig asks getenv for, and every literal name read with os.Getenv or
// os.LookupEnv anywhere in the server's code (tests, internal/ and cmd/
// aside: they are not the server).
func settingsRead(t *testing.T) []string {
	t.Helper()
	var (
		mu    sync.Mutex
		names = map[string]bool{}
	)
	saved := getenv
	getenv = func(name string) string {
		mu.Lock()
		names[name] = true
		mu.Unlock()
		return os.Getenv(name)
	}
	_, err := loadConfig()
	getenv = saved
	require.NoError(t, err)

	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".local", "node_modules", "internal", "cmd", "e2e":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "os" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ := strconv.Unquote(lit.Value)
				names[name] = true
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	slices.Sort(list)
	return list
}

// TestConfigurationPageListsEverySetting: every environment variable the
// server reads has a row in docs/configuration.md's settings table, and
// every row there is one the server reads.
func TestConfigurationPageListsEverySetting(t *testing.T) {
	read := settingsRead(t)
	require.Contains(t, read, "PORT")
	require.Contains(t, read, "AWS_ACCESS_KEY_ID", "the scan of os.Getenv outside loadConfig finds store/client.go's")

	body, err := os.ReadFile("docs/configuration.md")
	require.NoError(t, err)
	// The server's table is the page's first; `make run`'s own follows.
	serverTable, _, _ := strings.Cut(string(body), "\n## ")
	documented := map[string]bool{}
	for _, m := range settingRow.FindAllStringSubmatch(serverTable, -1) {
		documented[m[1]] = true
	}
	var missing, stale []string
	for _, n := range read {
		if !documented[n] {
			missing = append(missing, n)
		}
	}
	for n := range documented {
		if !slices.Contains(read, n) {
			stale = append(stale, n)
		}
	}
	slices.Sort(stale)
	require.Empty(t, missing, "settings the server reads but docs/configuration.md does not list")
	require.Empty(t, stale, "settings docs/configuration.md lists but the server does not read")
	t.Logf("docs/configuration.md lists all %d settings the server reads", len(read))
}
