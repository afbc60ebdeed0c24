package commands

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestTokenCreate(t *testing.T) {
	table := servertest.LocalTable(t)
	token := strings.TrimSpace(stdout(t, "token", "create", "--user", "123456789", "--name", "CI bot"))
	require.True(t, strings.HasPrefix(token, auth.TokenPrefix))

	s := store.New(dynamotest.Client(t), table, store.Options{})
	tok, err := s.LookupToken(context.Background(), auth.HashToken(token))
	require.NoError(t, err, "the printed token authenticates")
	require.Equal(t, "123456789", tok.UserID)
	require.Equal(t, "CI bot", tok.Name)
	require.Equal(t, []string{"READ", "WRITE"}, tok.Scopes)
	require.True(t, tok.ExpiresAt.IsZero(), "never expires by default")

	reader := stdout(t, "token", "create", "--user", "123456789", "--name", "Reader", "--scopes", "read", "--expires-in", "1h")
	tok, err = s.LookupToken(context.Background(), auth.HashToken(strings.TrimSpace(reader)))
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
		require.Error(t, run(args...), args)
	}
}
