// Package playground serves GraphiQL from the API server itself: the page,
// GraphiQL, React and ReactDOM (vendored from npm by
// scripts/update-graphiql.sh into npm/), the page's own script and style,
// and the Fracti icon, all embedded in the binary. Nothing is loaded from
// anywhere else, so the Playground works with no internet access; the page's
// Content-Security-Policy holds the browser to that.
package playground

import (
	"bytes"
	"crypto/sha512"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// AssetsPath is the path the page's scripts, styles and icon are served
// under. Each asset's name carries a hash of its content, so browsers may
// keep it for as long as they like.
const AssetsPath = "/playground/assets/"

//go:embed npm/*.js npm/*.css static
var files embed.FS

// vendoredFile is a file scripts/update-graphiql.sh copied from an npm
// package (see npm.go).
type vendoredFile struct {
	File      string // its name in npm/
	Package   string // name@version on npm
	Path      string // its path in the package
	Tarball   string // the registry's dist.integrity of the package's tarball
	Integrity string // the file's SRI hash
}

// ownFiles are the Playground's own assets in static/.
var ownFiles = []string{"playground.css", "playground.js", "fracti.svg"}

// asset is one file the page loads.
type asset struct {
	URL         string // AssetsPath and its versioned name
	Integrity   string // the SRI hash the page declares for it
	body        []byte
	contentType string
}

// contentTypes are the types of the assets, by extension (not from the
// system's MIME table, which differs between machines).
var contentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
}

// assets is every asset, by its name under AssetsPath.
type assets map[string]*asset

// load reads the embedded files: the vendored ones declare the integrity
// npm.go pins (so that a file changed by hand fails in the browser and in
// the tests), the Playground's own ones that of their content.
func load() (all assets, styles, scripts []*asset, icon *asset) {
	all = assets{}
	add := func(file, integrity string) *asset {
		body, err := files.ReadFile(file)
		if err != nil {
			panic("playground: " + err.Error()) // the embed pattern and the lists disagree
		}
		sum := sha512.Sum384(body)
		if integrity == "" {
			integrity = "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
		}
		ext := path.Ext(file)
		name := strings.TrimSuffix(path.Base(file), ext) + "." + hex.EncodeToString(sum[:5]) + ext
		a := &asset{URL: AssetsPath + name, Integrity: integrity, body: body, contentType: contentTypes[ext]}
		all[name] = a
		return a
	}
	for _, f := range vendored {
		a := add("npm/"+f.File, f.Integrity)
		if strings.HasSuffix(f.File, ".css") {
			styles = append(styles, a)
		} else {
			scripts = append(scripts, a)
		}
	}
	styles = append(styles, add("static/playground.css", ""))
	scripts = append(scripts, add("static/playground.js", ""))
	icon = add("static/fracti.svg", "")
	return all, styles, scripts, icon
}

var page = template.Must(template.New("playground").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="icon" type="image/svg+xml" href="{{.Icon.URL}}">
{{- range .Styles}}
<link rel="stylesheet" href="{{.URL}}" integrity="{{.Integrity}}">
{{- end}}
</head>
<body>
<div id="graphiql" data-endpoint="{{.Endpoint}}"{{if .HeadersFromLink}} data-headers-from-link="true"{{end}}><div class="loading">Loading…</div></div>
{{- range .Scripts}}
<script src="{{.URL}}" integrity="{{.Integrity}}"></script>
{{- end}}
</body>
</html>
`))

// contentSecurityPolicy lets the page load and connect only to its own
// origin ('self' covers ws: and wss: to the same host). GraphiQL sets
// inline styles, and its stylesheet embeds its fonts and images as data:
// URLs.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

// Options shape the Playground's page.
type Options struct {
	// Title is the page's title.
	Title string
	// Endpoint is the GraphQL endpoint, a path on the same host.
	Endpoint string
	// HeadersFromLink lets a link fill the Headers tab (see Link): for a
	// server on a local DynamoDB, whose demo link carries the demo user's
	// token. Never on a server others use, where a link sent to someone
	// could make them act as whoever's token it holds.
	HeadersFromLink bool
}

// Register adds the Playground's routes to mux: the page at GET /, its
// assets under AssetsPath and the icon at /favicon.ico. The page's GraphiQL
// sends operations to opts.Endpoint over HTTP, and subscriptions there over
// a WebSocket.
func Register(mux *http.ServeMux, opts Options) {
	all, styles, scripts, icon := load()
	var html bytes.Buffer
	err := page.Execute(&html, struct {
		Options
		Icon            *asset
		Styles, Scripts []*asset
	}{opts, icon, styles, scripts})
	if err != nil {
		panic("playground: " + err.Error())
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache") // a new release names new assets
		_, _ = w.Write(html.Bytes())
	})
	mux.HandleFunc("GET "+AssetsPath+"{name}", func(w http.ResponseWriter, r *http.Request) {
		a, ok := all[r.PathValue("name")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		a.serve(w, "public, max-age=31536000, immutable")
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		// An SVG under the name browsers and tools ask for by default;
		// browsers go by its type.
		icon.serve(w, "public, max-age=86400")
	})
}

func (a *asset) serve(w http.ResponseWriter, cacheControl string) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cacheControl)
	_, _ = w.Write(a.body)
}

// Link is the address of the Playground served at base (such as
// "http://localhost:8080") that opens with headers in its Headers tab, on a
// server that allows it (Options.HeadersFromLink). They travel in the
// fragment, which a browser never sends to any server.
func Link(base string, headers map[string]string) string {
	b, err := json.MarshalIndent(headers, "", "  ")
	if err != nil {
		panic("playground: " + err.Error()) // a map of strings always encodes
	}
	return strings.TrimSuffix(base, "/") + "/#" + url.Values{"headers": {string(b)}}.Encode()
}
