package commands

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The command's flags and output; what the migration does is tested in the store.
func TestMigrateCommand(t *testing.T) {
	table := servertest.LocalTable(t)
	ctx := context.Background()
	s := store.New(dynamotest.Client(t), table, store.Options{})
	_, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: money.MustCurrency("USD"), Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)

	var out bytes.Buffer
	require.NoError(t, call(t, migrateCommand, []string{"--dry-run", "--segments", "2"}, &out))
	require.Contains(t, out.String(), "segment 2/2")
	require.Contains(t, out.String(), "0 would change", "today's items need nothing")

	out.Reset()
	require.NoError(t, call(t, migrateCommand, []string{"--segments", "2"}, &out))
	require.Contains(t, out.String(), "0 changed")
	out.Reset()
	require.NoError(t, call(t, migrateCommand, []string{"--segments", "2"}, &out))
	require.Contains(t, out.String(), "2 of 2 segments were already done")

	require.Error(t, call(t, migrateCommand, []string{"--segments", "0"}, &out))
	require.Error(t, run("migrate", "--bogus"))
}

// TestMigrateThenVerify: a group written by hand in the first version's
// shape (no ledger, balances, versions, GSI3 keys or participant records),
// migrated by the command, then passes verify, the user lists find its
// items, and a second run changes nothing.
func TestMigrateThenVerify(t *testing.T) {
	table := servertest.LocalTable(t)
	ctx := context.Background()
	db := dynamotest.Client(t)
	groupID := servertest.FirstVersionGroup(t, db, table)

	var out bytes.Buffer
	require.NoError(t, call(t, migrateCommand, []string{"--dry-run"}, &out))
	require.Contains(t, out.String(), "10 would change", "the expense, its revision and 2 participant records; the ledger, 1 book, the group, its roles, its expense's day and its daysKept")
	out.Reset()
	require.NoError(t, call(t, migrateCommand, nil, &out))
	require.Contains(t, out.String(), "10 changed; the migration is complete")
	// Spending summaries are not kept by the first version: after upgrading
	// they are built once (docs/spending.md).
	require.NoError(t, call(t, rebuildSummariesCommand, nil, &out))
	require.Contains(t, out.String(), "1 groups rebuilt, 1 summaries rewritten")

	out.Reset()
	require.NoError(t, call(t, verifyCommand, nil, &out))
	require.Contains(t, out.String(), "group "+groupID+": ok")
	require.Contains(t, out.String(), "1 groups verified, 0 with drift")

	st := store.New(db, table, store.Options{})
	g, err := st.CurrentGroup(ctx, groupID)
	require.NoError(t, err)
	require.True(t, g.RolesKept, "migrate wrote the roles down")
	paid, err := st.ListUserExpenses(ctx, "1", store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, paid.Items, 1)
	owes, err := st.ListUserShares(ctx, "3", store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, owes.Items, 1)
	require.Equal(t, "3.33", owes.Items[0].Amount.String())

	out.Reset()
	require.NoError(t, call(t, migrateCommand, []string{"--restart"}, &out))
	require.Contains(t, out.String(), " 0 changed; the migration is complete")
}

// TestProgressPrinter: while a segment scans, its line is printed at most
// once per interval; a finished segment is always printed, and at the end
// each segment's newest count that was not printed yet.
func TestProgressPrinter(t *testing.T) {
	var out bytes.Buffer
	p := newProgressPrinter(&out, time.Hour)
	p.report(store.MigrateProgress{Segment: 0, Segments: 2, Scanned: 100})
	p.report(store.MigrateProgress{Segment: 0, Segments: 2, Scanned: 200, Changed: 3})
	p.report(store.MigrateProgress{Segment: 1, Segments: 2, Scanned: 50, Done: true})
	p.flush()
	require.Equal(t, "segment 1/2: 100 items scanned, 0 changed (scanning)\n"+
		"segment 2/2: 50 items scanned, 0 changed (done)\n"+
		"segment 1/2: 200 items scanned, 3 changed (scanning)\n", out.String())
}
