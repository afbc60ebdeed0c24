package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestConfigDefaults(t *testing.T) {
	for _, v := range []string{"PORT", "DYNAMODB_TABLE", "AUTH_MAX_AGE", "CURSOR_SECRET", "CORS_ALLOWED_ORIGINS", "PLAYGROUND", "MAX_BODY_BYTES"} {
		t.Setenv(v, "")
	}
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, "8080", c.Port)
	require.Equal(t, "FractiTable", c.Table)
	require.Equal(t, 24*time.Hour, c.AuthMaxAge)
	require.Len(t, c.CursorSecret, 32)
	require.False(t, c.secretFromEnv)
	require.Empty(t, c.CORSOrigins)
	require.Equal(t, 30*time.Second, c.TokenCacheTTL)
}

// TestConfigPlayground: the Playground is on by default against a local
// engine (DYNAMODB_ENDPOINT), off by default against AWS, and PLAYGROUND
// decides either way.
func TestConfigPlayground(t *testing.T) {
	for _, tc := range []struct {
		endpoint, playground string
		want                 bool
	}{
		{"http://127.0.0.1:8000", "", true},
		{"", "", false},
		{"", "true", true},
		{"http://127.0.0.1:8000", "false", false},
		{"", "false", false},
	} {
		t.Setenv("DYNAMODB_ENDPOINT", tc.endpoint)
		t.Setenv("PLAYGROUND", tc.playground)
		c, err := loadConfig()
		require.NoError(t, err)
		require.Equal(t, tc.want, c.Playground, "DYNAMODB_ENDPOINT=%q PLAYGROUND=%q", tc.endpoint, tc.playground)
	}
}

func TestConfigTokenCacheTTL(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 30 * time.Second, "5s": 5 * time.Second, "0s": -1, "0": -1} {
		t.Setenv("TOKEN_CACHE_TTL", value)
		c, err := loadConfig()
		require.NoError(t, err, value)
		require.Equal(t, want, c.TokenCacheTTL, "%q (negative: no cache)", value)
	}
	for _, value := range []string{"-1s", "soon"} {
		t.Setenv("TOKEN_CACHE_TTL", value)
		_, err := loadConfig()
		require.ErrorContains(t, err, "TOKEN_CACHE_TTL", value)
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("PORT", "9000")
	t.Setenv("DYNAMODB_TABLE", "Fracti-prod")
	t.Setenv("AUTH_MAX_AGE", "1h")
	t.Setenv("CURSOR_SECRET", "s3cret")
	t.Setenv("CORS_ALLOWED_ORIGINS", "https://a.example, https://b.example")
	t.Setenv("PLAYGROUND", "false")
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, "9000", c.Port)
	require.Equal(t, "Fracti-prod", c.Table)
	require.Equal(t, time.Hour, c.AuthMaxAge)
	require.Equal(t, []byte("s3cret"), c.CursorSecret)
	require.Equal(t, []string{"https://a.example", "https://b.example"}, c.CORSOrigins)
	require.False(t, c.Playground)

	for name, value := range map[string]string{"AUTH_MAX_AGE": "a day", "PLAYGROUND": "maybe", "MAX_BODY_BYTES": "-1", "LOADER_WAIT": "0s"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := loadConfig()
			require.ErrorContains(t, err, name)
		})
	}
}

func TestConfigIntrospectionAndSuggestions(t *testing.T) {
	for _, tc := range []struct {
		introspection, suggestions   string
		wantIntrospection, wantHints bool
	}{
		{"", "", true, true},
		{"false", "", false, false}, // hints would spell out the hidden schema
		{"false", "true", false, true},
		{"true", "false", true, false},
	} {
		t.Setenv("INTROSPECTION", tc.introspection)
		t.Setenv("FIELD_SUGGESTIONS", tc.suggestions)
		c, err := loadConfig()
		require.NoError(t, err)
		require.Equal(t, tc.wantIntrospection, c.Introspection, "%+v", tc)
		require.Equal(t, tc.wantHints, c.FieldSuggestions, "%+v", tc)
	}
	for _, name := range []string{"INTROSPECTION", "FIELD_SUGGESTIONS"} {
		t.Setenv(name, "off")
		_, err := loadConfig()
		require.ErrorContains(t, err, name)
		t.Setenv(name, "")
	}
}

func TestServeRefusesAManifestThatDoesNotFit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trusted.json")
	const doc = `{ me { shoeSize } }`
	sum := sha256.Sum256([]byte(doc))
	require.NoError(t, os.WriteFile(path, []byte(`{"`+hex.EncodeToString(sum[:])+`": "`+doc+`"}`), 0o600))
	t.Setenv("TRUSTED_DOCUMENTS", path)
	t.Setenv("PORT", "0")
	err := run(context.Background(), []string{"serve"})
	require.ErrorContains(t, err, "trusted documents "+path)
	require.ErrorContains(t, err, "not valid against this server's schema")
}

// localTable points the configuration at a fresh table on DynamoDB Local.
func localTable(t testing.TB) string {
	t.Setenv("DYNAMODB_ENDPOINT", dynamotest.Endpoint(t))
	table := dynamotest.Table(t)
	t.Setenv("DYNAMODB_TABLE", table)
	return table
}

func TestTokenCreate(t *testing.T) {
	table := localTable(t)
	stdout := captureStdout(t, func() {
		require.NoError(t, run(context.Background(), []string{"token", "create", "--user", "123456789", "--name", "CI bot"}))
	})
	token := strings.TrimSpace(stdout)
	require.True(t, strings.HasPrefix(token, auth.TokenPrefix))

	s := store.New(dynamotest.Client(t), table, store.Options{})
	tok, err := s.LookupToken(context.Background(), auth.HashToken(token))
	require.NoError(t, err, "the printed token authenticates")
	require.Equal(t, "123456789", tok.UserID)
	require.Equal(t, "CI bot", tok.Name)
	require.Equal(t, []string{"READ", "WRITE"}, tok.Scopes)
	require.True(t, tok.ExpiresAt.IsZero(), "never expires by default")

	stdout = captureStdout(t, func() {
		require.NoError(t, run(context.Background(), []string{"token", "create", "--user", "123456789", "--name", "Reader",
			"--scopes", "read", "--expires-in", "1h"}))
	})
	tok, err = s.LookupToken(context.Background(), auth.HashToken(strings.TrimSpace(stdout)))
	require.NoError(t, err)
	require.Equal(t, []string{"READ"}, tok.Scopes)
	require.WithinDuration(t, time.Now().Add(time.Hour), tok.ExpiresAt, time.Minute)

	for _, args := range [][]string{
		{"token", "create", "--name", "x"},
		{"token", "create", "--user", "alice", "--name", "x"},
		{"token", "create", "--user", "1"},
		{"token", "create", "--user", "1", "--name", "x", "--scopes", "ADMIN"},
		{"token", "create", "--user", "1", "--name", "x", "--scopes", ""},
		{"token", "create", "--user", "1", "--name", "x", "--expires-in", "-1h"},
		{"token"},
		{"frobnicate"},
	} {
		require.Error(t, run(context.Background(), args), args)
	}
}

func TestDemoIsCreatedOnceAndItsTokenKept(t *testing.T) {
	table := localTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{})
	file := filepath.Join(t.TempDir(), "demo-token")
	ctx := context.Background()

	first, err := ensureDemo(ctx, s, file)
	require.NoError(t, err)
	again, err := ensureDemo(ctx, s, file)
	require.NoError(t, err)
	require.Equal(t, first, again)

	groups, err := s.ListUserGroups(ctx, demoUser, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, groups.Items, 1)
	expenses, err := s.ListExpenses(ctx, groups.Items[0].GroupID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, expenses.Items, 2)
}

// TestDemoOnlyOnALocalEngine: `serve --demo` (make run) writes demo data and
// prints a token only against a DynamoDB of its own, never AWS, and only
// then may a link fill the Playground's Headers tab.
func TestDemoOnlyOnALocalEngine(t *testing.T) {
	for endpoint, local := range map[string]bool{
		"":                           false,
		"http://127.0.0.1:8000":      true,
		"http://dynamodb-local:8000": true,
		"https://dynamodb.eu-west-1.amazonaws.com":     false,
		"https://dynamodb.cn-north-1.amazonaws.com.cn": false,
	} {
		require.Equal(t, local, config{Endpoint: endpoint}.localEngine(), endpoint)
	}
	t.Setenv("DYNAMODB_ENDPOINT", "")
	err := run(context.Background(), []string{"serve", "--demo"})
	require.ErrorContains(t, err, "serve --demo needs DYNAMODB_ENDPOINT")
}

// TestWelcomeLinksThePlaygroundSignedIn: what `make run` prints opens the
// Playground with the demo token in its Headers tab, and names the token
// for other clients; without the Playground, no link.
func TestWelcomeLinksThePlaygroundSignedIn(t *testing.T) {
	var out strings.Builder
	printWelcome(&out, config{Port: "8080", Table: "FractiTable", Playground: true}, "frt_demo")
	link := regexp.MustCompile(`http://localhost:8080/#headers=\S+`).FindString(out.String())
	require.NotEmpty(t, link, out.String())
	u, err := url.Parse(link)
	require.NoError(t, err)
	frag, err := url.ParseQuery(u.EscapedFragment())
	require.NoError(t, err)
	require.JSONEq(t, `{"Authorization": "Bearer frt_demo"}`, frag.Get("headers"))
	require.Contains(t, out.String(), "Authorization: Bearer frt_demo")

	out.Reset()
	printWelcome(&out, config{Port: "8080", Table: "FractiTable"}, "frt_demo")
	require.NotContains(t, out.String(), "#headers=")
}

func TestServeShutsDownGracefully(t *testing.T) {
	localTable(t)
	_, stop := startServe(t)
	require.NoError(t, stop())
}

// startServe runs `serve` on a free port with the environment the test set,
// and returns its base URL once /readyz answers 200. stop ends it as a
// SIGTERM would and returns serve's error; the test's end stops it too.
func startServe(t *testing.T) (base string, stop func() error) {
	t.Helper()
	port := freePort(t)
	t.Setenv("PORT", port)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				err = errors.New("serve did not stop")
			}
		})
		return err
	}
	t.Cleanup(func() { require.NoError(t, stop()) })
	base = "http://127.0.0.1:" + port
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "serve did not start")
	return base, stop
}

func captureStdout(t *testing.T, f func()) string {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = old }()
	f()
	require.NoError(t, w.Close())
	b, _ := io.ReadAll(r)
	return string(b)
}

// LIVE_MAX_CONNECTIONS defaults to what the descriptor limit allows, and
// takes a positive number.
func TestConfigLiveMaxConnections(t *testing.T) {
	t.Setenv("LIVE_MAX_CONNECTIONS", "")
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, httpapi.DefaultMaxConnections(), c.LiveLimits.MaxConnections)
	t.Setenv("LIVE_MAX_CONNECTIONS", "5000")
	c, err = loadConfig()
	require.NoError(t, err)
	require.Equal(t, 5000, c.LiveLimits.MaxConnections)
	for _, bad := range []string{"0", "-1", "many"} {
		t.Setenv("LIVE_MAX_CONNECTIONS", bad)
		_, err = loadConfig()
		require.ErrorContains(t, err, "LIVE_MAX_CONNECTIONS", bad)
	}
}
