package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/fracti/api/internal/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The command's flags and output; what the migration does is tested in the store.
func TestMigrateCommand(t *testing.T) {
	table := localTable(t)
	ctx := context.Background()
	s := store.New(dynamotest.Client(t), table, store.Options{})
	_, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: money.MustCurrency("USD"), Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)

	var out bytes.Buffer
	require.NoError(t, migrateCommand(ctx, cfgFromEnv(t), []string{"--dry-run", "--segments", "2"}, &out))
	require.Contains(t, out.String(), "segment 2/2")
	require.Contains(t, out.String(), "0 would change", "today's items need nothing")

	out.Reset()
	require.NoError(t, migrateCommand(ctx, cfgFromEnv(t), []string{"--segments", "2"}, &out))
	require.Contains(t, out.String(), "0 changed")
	out.Reset()
	require.NoError(t, migrateCommand(ctx, cfgFromEnv(t), []string{"--segments", "2"}, &out))
	require.Contains(t, out.String(), "2 of 2 segments were already done")

	require.Error(t, migrateCommand(ctx, cfgFromEnv(t), []string{"--segments", "0"}, &out))
	require.Error(t, run(ctx, []string{"migrate", "--bogus"}))
}
