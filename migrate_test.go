package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
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

// TestMigrateThenVerify: a group written by hand in the first version's
// shape (no ledger, balances, versions, GSI3 keys or participant records),
// migrated by the command, then passes verify, the user lists find its
// items, and a second run changes nothing.
func TestMigrateThenVerify(t *testing.T) {
	table := localTable(t)
	ctx := context.Background()
	db := dynamotest.Client(t)
	groupID := writeFirstVersionGroup(t, db, table)

	var out bytes.Buffer
	require.NoError(t, migrateCommand(ctx, cfgFromEnv(t), []string{"--dry-run"}, &out))
	require.Contains(t, out.String(), "7 would change", "the expense, its revision and 2 participant records; the ledger, 1 book and the group")
	out.Reset()
	require.NoError(t, migrateCommand(ctx, cfgFromEnv(t), nil, &out))
	require.Contains(t, out.String(), "7 changed; the migration is complete")
	// Spending summaries are not kept by the first version: after upgrading
	// they are built once (docs/spending.md).
	require.NoError(t, rebuildSummariesCommand(ctx, cfgFromEnv(t), nil, &out))
	require.Contains(t, out.String(), "1 groups rebuilt, 1 summaries rewritten")

	out.Reset()
	require.NoError(t, verifyCommand(ctx, cfgFromEnv(t), nil, &out))
	require.Contains(t, out.String(), "group "+groupID+": ok")
	require.Contains(t, out.String(), "1 groups verified, 0 with drift")

	st := store.New(db, table, store.Options{})
	paid, err := st.ListUserExpenses(ctx, "1", store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, paid.Items, 1)
	owes, err := st.ListUserShares(ctx, "3", store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Len(t, owes.Items, 1)
	require.Equal(t, "3.33", owes.Items[0].Amount.String())

	out.Reset()
	require.NoError(t, migrateCommand(ctx, cfgFromEnv(t), []string{"--restart"}, &out))
	require.Contains(t, out.String(), " 0 changed; the migration is complete")
}

// writeFirstVersionGroup writes a group in the first version's shape (no
// ledger, balances, versions, GSI3 keys or participant records): three
// members and an expense split between them. It returns the group's id.
func writeFirstVersionGroup(t *testing.T, db *dynamodb.Client, table string) string {
	t.Helper()
	ctx := context.Background()
	const groupID, expenseID = "0a0b0c0d-0000-4000-8000-00000000000a", "0a0b0c0d-e000-4000-8000-000000000001"
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	split := func(user, amount string) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"userId": s(user), "userName": s("U" + user), "amount": n(amount)}}
	}
	pk := "GROUP#" + groupID
	member := func(user string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("USER#" + user), "GSI1PK": s("USER#" + user), "GSI1SK": s(pk),
			"id": s(user), "telegramId": n(user), "name": s("U" + user), "joinedAt": s("2023-05-01T10:00:00.000Z")}
	}
	for _, item := range []map[string]types.AttributeValue{
		{"PK": s(pk), "SK": s("METADATA"), "id": s(groupID), "title": s("Old"), "currency": s("USD"), "createdAt": s("2023-05-01T10:00:00.000Z"), "memberCount": n("3")},
		member("1"), member("2"), member("3"),
		{"PK": s(pk), "SK": s("TX#2023-05-02T10:00:00.000Z#" + expenseID), "GSI2PK": s("EXPENSE#" + expenseID), "GSI2SK": s(groupID),
			"id": s(expenseID), "groupId": s(groupID), "payerId": s("1"), "payerName": s("U1"), "amount": n("10"), "currency": s("USD"),
			"description": s("Taxi"), "splitType": s("equal"), "createdAt": s("2023-05-02T10:00:00.000Z"),
			"splits": &types.AttributeValueMemberL{Value: []types.AttributeValue{split("1", "3.34"), split("2", "3.33"), split("3", "3.33")}}},
	} {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		require.NoError(t, err)
	}
	return groupID
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
