package playground

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func serve(t *testing.T) *http.ServeMux {
	mux := http.NewServeMux()
	Register(mux, Options{Title: "Fracti API", Endpoint: "/graphql"})
	return mux
}

// TestLink: the headers travel in the fragment as JSON the page parses, and
// the page reads a link's headers only where its server allows it.
func TestLink(t *testing.T) {
	link := Link("http://localhost:8080/", map[string]string{"Authorization": "Bearer frt_abc+/="})
	u, err := url.Parse(link)
	require.NoError(t, err)
	require.Equal(t, "http://localhost:8080/", u.Scheme+"://"+u.Host+u.Path, "the page itself, with nothing for the server to see")
	require.Empty(t, u.RawQuery)
	frag, err := url.ParseQuery(u.EscapedFragment()) // as the page reads location.hash
	require.NoError(t, err)
	var headers map[string]string
	require.NoError(t, json.Unmarshal([]byte(frag.Get("headers")), &headers))
	require.Equal(t, map[string]string{"Authorization": "Bearer frt_abc+/="}, headers)

	_, page := get(t, serve(t), "/")
	require.NotContains(t, string(page), "data-headers-from-link")
	mux := http.NewServeMux()
	Register(mux, Options{Title: "Fracti API", Endpoint: "/graphql", HeadersFromLink: true})
	_, page = get(t, mux, "/")
	require.Contains(t, string(page), `data-headers-from-link="true"`)
}

func get(t *testing.T, h http.Handler, path string) (*http.Response, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, body
}

func sha384(b []byte) string {
	sum := sha512.Sum384(b)
	return "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
}

var (
	scriptTag     = regexp.MustCompile(`<script src="([^"]*)" integrity="([^"]*)"></script>`)
	stylesheetTag = regexp.MustCompile(`<link rel="stylesheet" href="([^"]*)" integrity="([^"]*)">`)
	iconTag       = regexp.MustCompile(`<link rel="icon" type="image/svg\+xml" href="([^"]*)">`)
	anyURL        = regexp.MustCompile(`(?:src|href)="([^"]*)"`)
)

// TestPageDeclaresTheIntegrityOfWhatItLoads recomputes the sha384 of every
// script and stylesheet the page loads, as served, and checks it against the
// integrity the page declares (which the browser enforces too).
func TestPageDeclaresTheIntegrityOfWhatItLoads(t *testing.T) {
	mux := serve(t)
	res, page := get(t, mux, "/")
	require.Equal(t, http.StatusOK, res.StatusCode)
	scripts := scriptTag.FindAllStringSubmatch(string(page), -1)
	styles := stylesheetTag.FindAllStringSubmatch(string(page), -1)
	require.Len(t, scripts, 4, "React, ReactDOM, GraphiQL and the page's own script:\n%s", page)
	require.Len(t, styles, 2, "GraphiQL's stylesheet and the page's own:\n%s", page)
	for i, want := range []string{"react-18.3.1.min.", "react-dom-18.3.1.min.", "graphiql-4.1.2.min.", "playground."} {
		require.Contains(t, scripts[i][1], AssetsPath+want, "the scripts load in dependency order")
	}
	for _, tag := range append(scripts, styles...) {
		url, integrity := html.UnescapeString(tag[1]), html.UnescapeString(tag[2])
		res, body := get(t, mux, url)
		require.Equal(t, http.StatusOK, res.StatusCode, url)
		require.Equal(t, sha384(body), integrity, "%s: the page declares an integrity its content does not have", url)
	}
	icon := iconTag.FindStringSubmatch(string(page))
	require.NotNil(t, icon, "the page links its icon")
	res, body := get(t, mux, icon[1])
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, string(body), "<svg")

	// Everything the page refers to is on its own host.
	for _, m := range anyURL.FindAllStringSubmatch(string(page), -1) {
		require.True(t, strings.HasPrefix(m[1], AssetsPath), "%s is not one of the Playground's own assets", m[1])
	}
	require.Contains(t, string(page), `data-endpoint="/graphql"`)
}

// TestVendoredFilesAreThePinnedOnes: every file in npm/ is one that
// scripts/update-graphiql.sh put there, with the content whose hash it
// recorded, its package's licence beside it.
func TestVendoredFilesAreThePinnedOnes(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range vendored {
		listed[f.File] = true
		body, err := files.ReadFile("npm/" + f.File)
		require.NoError(t, err)
		require.Equal(t, f.Integrity, sha384(body), "npm/%s was changed since scripts/update-graphiql.sh copied it from %s", f.File, f.Package)
		require.True(t, strings.HasPrefix(f.Tarball, "sha512-"), "%s: the registry's tarball integrity is recorded", f.Package)
		name, version, _ := strings.Cut(f.Package, "@")
		_, err = os.Stat(filepath.Join("npm", name+"-"+version+".LICENSE"))
		require.NoError(t, err, "the licence of %s is vendored with it", f.Package)
	}
	entries, err := os.ReadDir("npm")
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".LICENSE") {
			require.True(t, listed[e.Name()], "npm/%s is not in npm.go: run scripts/update-graphiql.sh", e.Name())
		}
	}
}

// TestStylesLoadNothingFromElsewhere: the stylesheets import nothing and
// refer to no URL but data: ones (GraphiQL embeds its fonts).
func TestStylesLoadNothingFromElsewhere(t *testing.T) {
	all, styles, _, _ := load()
	require.NotEmpty(t, all)
	cssURL := regexp.MustCompile(`url\(\s*["']?([^"')]*)`)
	for _, s := range styles {
		css := string(s.body)
		require.NotContains(t, css, "@import", s.URL)
		for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
			require.True(t, strings.HasPrefix(m[1], "data:"), "%s refers to %s", s.URL, m[1])
		}
	}
}

func TestHeaders(t *testing.T) {
	mux := serve(t)
	res, _ := get(t, mux, "/")
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
	csp := res.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'self'")
	require.Contains(t, csp, "script-src 'self';", "no inline script, no eval")
	require.Contains(t, csp, "connect-src 'self'")

	all, _, _, _ := load()
	for name, a := range all {
		res, body := get(t, mux, a.URL)
		require.Equal(t, http.StatusOK, res.StatusCode, name)
		require.Equal(t, map[string]string{
			".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml",
		}[filepath.Ext(name)], res.Header.Get("Content-Type"), name)
		require.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"), name)
		require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
		require.Equal(t, a.body, body)
	}

	res, body := get(t, mux, "/favicon.ico")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"))
	require.Contains(t, string(body), "<svg")

	for _, path := range []string{AssetsPath + "graphiql.min.js", AssetsPath + "nope.js", AssetsPath, "/playground/"} {
		res, _ := get(t, mux, path)
		require.Equal(t, http.StatusNotFound, res.StatusCode, path)
	}
}

// TestAssetNamesChangeWithTheirContent: an asset's name carries a hash of
// its content, which is what makes caching it for a year safe.
func TestAssetNamesChangeWithTheirContent(t *testing.T) {
	all, _, _, _ := load()
	for name, a := range all {
		sum := sha512.Sum384(a.body)
		require.Contains(t, name, "."+hex.EncodeToString(sum[:5])+".", name)
	}
}
