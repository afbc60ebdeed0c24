package commands

import (
	"context"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fracti/api/config"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestDemoIsCreatedOnceAndItsTokenKept(t *testing.T) {
	table := servertest.LocalTable(t)
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
// prints a token only against a DynamoDB of its own, never AWS (which
// endpoints are local: config's TestLocalEngine).
func TestDemoOnlyOnALocalEngine(t *testing.T) {
	t.Setenv("DYNAMODB_ENDPOINT", "")
	err := run("serve", "--demo")
	require.ErrorContains(t, err, "serve --demo needs DYNAMODB_ENDPOINT")
}

// TestWelcomeLinksThePlaygroundSignedIn: what `make run` prints opens the
// Playground with the demo token in its Headers tab, and names the token
// for other clients; without the Playground, no link.
func TestWelcomeLinksThePlaygroundSignedIn(t *testing.T) {
	var out strings.Builder
	printWelcome(&out, config.Config{Server: config.Server{Port: "8080", Playground: true}, Store: config.Store{Table: "FractiTable"}}, "frt_demo")
	link := regexp.MustCompile(`http://localhost:8080/#headers=\S+`).FindString(out.String())
	require.NotEmpty(t, link, out.String())
	u, err := url.Parse(link)
	require.NoError(t, err)
	frag, err := url.ParseQuery(u.EscapedFragment())
	require.NoError(t, err)
	require.JSONEq(t, `{"Authorization": "Bearer frt_demo"}`, frag.Get("headers"))
	require.Contains(t, out.String(), "Authorization: Bearer frt_demo")
	require.Contains(t, out.String(), "Receipts     off (S3_BUCKET is unset)")

	out.Reset()
	printWelcome(&out, config.Config{Server: config.Server{Port: "8080"}, Store: config.Store{Table: "FractiTable"},
		Objects: config.ObjectStore{Bucket: "fracti-receipts", Endpoint: "http://127.0.0.1:9000"}}, "frt_demo")
	require.NotContains(t, out.String(), "#headers=")
	require.Contains(t, out.String(), "Receipts     bucket fracti-receipts on the S3 endpoint http://127.0.0.1:9000", "make run's local S3 server")
}
