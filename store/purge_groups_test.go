package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A purge interrupted at every batch and resumed: each run lets one more
// BatchWriteItem through and fails the next (then the final transaction
// fails once too), and the runs that follow finish it. In the end the table
// holds no item of the group, in its partition or elsewhere (its chat, its
// place on the weekly list, its digest lines), no GSI entry of it (PURGE
// among them), and every other item exactly as it was.
func TestPurgeInterruptedAtEveryBatchAndResumed(t *testing.T) {
	var (
		armed   bool
		batches int // BatchWriteItem calls let through in this run
		failTx  bool
	)
	errInjected := errors.New("injected failure")
	fault := dynamotest.NewFault(func(op string, _ int) error {
		switch {
		case !armed:
			return nil
		case op == "BatchWriteItem":
			if batches == 1 {
				return errInjected
			}
			batches++
		case op == "TransactWriteItems" && failTx:
			failTx = false
			return errInjected
		}
		return nil
	})
	f := newSeriesFixture(t, fault.Option())

	doomed := f.groupWithEverything("-100111", "1", "2", "3")
	kept := f.groupWithEverything("-100222", "1", "2", "4")
	_, err := f.DeleteGroup(ctx, doomed.ID, "1")
	require.NoError(t, err)
	before := f.scan()
	run, err := f.PurgeDeletedGroups(ctx)
	require.NoError(t, err)
	require.Equal(t, store.PurgeRun{}, run, "nothing is purged within the restore window")
	require.Equal(t, before, f.scan())

	f.clock.Add(store.GroupRestoreWindow + time.Hour)
	armed, failTx = true, true // the last step, the group's own two items, is cut short once too
	runs := 0
	for ; ; runs++ {
		require.Less(t, runs, 200, "the purge does not end")
		batches = 0
		_, err := f.PurgeDeletedGroups(ctx)
		if err == nil {
			break
		}
		require.ErrorIs(t, err, errInjected)
		_, err = f.RestoreGroup(ctx, doomed.ID, "1")
		require.ErrorIs(t, err, store.ErrNotFound, "a purge under way cannot be undone")
	}
	t.Logf("%d runs cut short before the purge finished", runs)
	require.Greater(t, runs, 5, "interrupted after each of several batches")

	after := f.scan()
	for key := range after {
		require.NotContains(t, key, doomed.ID, "an item of the purged group is left")
	}
	for key, item := range before {
		if !strings.Contains(key, doomed.ID) && !strings.HasPrefix(key, "CHAT#-100111|") {
			require.Equal(t, item, after[key], "%s changed", key)
		}
	}
	require.Len(t, after, countWithout(before, doomed.ID, "CHAT#-100111|"), "only the group's items went")
	g, err := f.getGroup(kept.ID)
	require.NoError(t, err)
	require.Equal(t, kept.ID, g.ID)

	run, err = f.PurgeDeletedGroups(ctx)
	require.NoError(t, err)
	require.Equal(t, store.PurgeRun{}, run, "purging again finds nothing")
}

// groupWithEverything makes a group of users holding an item of every kind
// a group has: expenses (one deleted, with revisions), a completed and a
// pending settlement, a comment, an invite, a recurring expense with an
// occurrence, a connected chat, the weekly reminder, a digest line, a
// notification stamp, spending summaries, events.
func (f seriesFixture) groupWithEverything(chatID string, users ...string) store.Group {
	f.t.Helper()
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "Flat " + chatID, ChatID: chatID, Currency: usd, Creator: user(users[0])})
	require.NoError(f.t, err)
	for _, u := range users[1:] {
		_, _, err := f.JoinGroup(ctx, g.ID, user(u))
		require.NoError(f.t, err)
	}
	var last store.Expense
	for i := range 40 {
		last = f.expense(g, users[i%len(users)], fmt.Sprintf("%d.00", 10+i), users...)
	}
	_, err = f.DeleteExpense(ctx, last, users[0])
	require.NoError(f.t, err)
	e := f.expense(g, users[0], "9.00", users...)
	f.settle(g, users[1], users[0], "3.00", store.SettlementCompleted)
	f.settle(g, users[2], users[0], "3.00", store.SettlementPending)
	_, err = f.AddComment(ctx, e.Ref(), store.Comment{GroupID: g.ID, ExpenseID: e.ID, AuthorID: users[1], AuthorName: "User " + users[1], Body: "thanks"})
	require.NoError(f.t, err)
	_, err = f.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: users[0]}, time.Hour, "hash-"+chatID)
	require.NoError(f.t, err)
	f.series(equalExpense(g, users[0], "5.00", users...), store.EveryMonth, store.FormatDay(seriesNow), nil)
	_, err = f.RunRecurring(ctx, 0)
	require.NoError(f.t, err)
	cur, err := f.CurrentGroup(ctx, g.ID)
	require.NoError(f.t, err)
	on := true
	_, err = f.UpdateGroup(ctx, *cur, store.GroupChange{WeeklyReminder: &on}, users[0])
	require.NoError(f.t, err)
	require.NoError(f.t, f.QueueDigestLine(ctx, string(store.DigestDaily), store.DigestLine{UserID: users[1], GroupID: g.ID, Seq: 3, Text: "x"}))
	_, err = f.ClaimGroupStamp(ctx, g.ID, store.StampReminder, "2026-03-10", time.Hour)
	require.NoError(f.t, err)
	return g
}

// scan is every item of the table by "PK|SK", each with its attributes.
func (f seriesFixture) scan() map[string]map[string]any {
	f.t.Helper()
	out := map[string]map[string]any{}
	in := &dynamodb.ScanInput{TableName: aws.String(f.table)}
	for {
		page, err := f.db.Scan(ctx, in)
		require.NoError(f.t, err)
		for _, it := range page.Items {
			var m map[string]any
			require.NoError(f.t, attributevalue.UnmarshalMap(it, &m))
			out[fmt.Sprint(m["PK"])+"|"+fmt.Sprint(m["SK"])] = m
		}
		if page.LastEvaluatedKey == nil {
			return out
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// countWithout counts the items whose key mentions none of parts.
func countWithout(items map[string]map[string]any, parts ...string) int {
	n := 0
	for key := range items {
		if !strings.Contains(key, parts[0]) && !strings.HasPrefix(key, parts[1]) {
			n++
		}
	}
	return n
}
