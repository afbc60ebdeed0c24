package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The items of the data model's first version, written by hand.
var (
	sAttr = func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	nAttr = func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
)

// oldExpenseItem is an expense as the first version wrote it: Ann paid 30
// for herself and Ben, without GSI3 keys, version or formatVersion (and,
// written alone, without participant records).
func oldExpenseItem(groupID, expenseID string) map[string]types.AttributeValue {
	split := func(user, name, amount string) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"userId": sAttr(user), "userName": sAttr(name), "amount": nAttr(amount)}}
	}
	return map[string]types.AttributeValue{
		"PK": sAttr("GROUP#" + groupID), "SK": sAttr("TX#2023-05-02T10:00:00.000Z#" + expenseID),
		"GSI2PK": sAttr("EXPENSE#" + expenseID), "GSI2SK": sAttr(groupID),
		"id": sAttr(expenseID), "groupId": sAttr(groupID), "payerId": sAttr("1"), "payerName": sAttr("Ann"), "amount": nAttr("30"), "currency": sAttr("USD"),
		"description": sAttr("Rent"), "splitType": sAttr("equal"), "createdAt": sAttr("2023-05-02T10:00:00.000Z"),
		"splits": &types.AttributeValueMemberL{Value: []types.AttributeValue{split("1", "Ann", "15"), split("2", "Ben", "15")}},
	}
}

// putItems writes raw items, behind the store's back.
func putItems(t *testing.T, f fixture, items ...map[string]types.AttributeValue) {
	t.Helper()
	db := dynamotestClient(t)
	for _, it := range items {
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.Table()), Item: it})
		require.NoError(t, err)
	}
}

// oldGroup writes, by hand, a group as the data model's first version wrote
// it: the group and its two memberships, an expense without GSI3 keys or
// participant records, and a completed settlement without GSI3 keys; no
// ledger, no balances, no versions, no formatVersion.
func oldGroup(t *testing.T, f fixture, groupID string) (expenseID, settlementID string) {
	t.Helper()
	s, n := sAttr, nAttr
	pk := "GROUP#" + groupID
	expenseID, settlementID = groupID[:8]+"-e000-4000-8000-000000000001", groupID[:8]+"-5000-4000-8000-000000000001"
	putItems(t, f,
		map[string]types.AttributeValue{"PK": s(pk), "SK": s("METADATA"), "id": s(groupID), "title": s("Old flat"), "currency": s("USD"),
			"createdAt": s("2023-05-01T10:00:00.000Z"), "memberCount": n("2")},
		map[string]types.AttributeValue{"PK": s(pk), "SK": s("USER#1"), "GSI1PK": s("USER#1"), "GSI1SK": s(pk), "id": s("1"), "telegramId": n("1"),
			"name": s("Ann"), "joinedAt": s("2023-05-01T10:00:00.000Z")},
		map[string]types.AttributeValue{"PK": s(pk), "SK": s("USER#2"), "GSI1PK": s("USER#2"), "GSI1SK": s(pk), "id": s("2"), "telegramId": n("2"),
			"name": s("Ben"), "joinedAt": s("2023-05-01T10:00:00.000Z")},
		oldExpenseItem(groupID, expenseID),
		map[string]types.AttributeValue{"PK": s(pk), "SK": s("SETTLE#2023-05-03T10:00:00.000Z#" + settlementID), "GSI2PK": s("SETTLEMENT#" + settlementID), "GSI2SK": s(groupID),
			"id": s(settlementID), "groupId": s(groupID), "fromUserId": s("2"), "fromUserName": s("Ben"), "toUserId": s("1"), "toUserName": s("Ann"),
			"amount": n("5"), "currency": s("USD"), "status": s("completed"),
			"createdAt": s("2023-05-03T10:00:00.000Z"), "completedAt": s("2023-05-03T11:00:00.000Z")},
	)
	return expenseID, settlementID
}

func TestMigrateBringsOldItemsUpToDate(t *testing.T) {
	f := newFixture(t)
	const groupID = "0a0b0c0d-0000-4000-8000-000000000001"
	expenseID, settlementID := oldGroup(t, f, groupID)
	fresh := f.group("1", "2") // a group of today's format: nothing to do

	// Before: the old items are invisible to the user lists.
	require.Empty(t, all(t, 10, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) }))

	// A dry run writes nothing.
	dry, err := f.Migrate(ctx, store.MigrateOptions{DryRun: true, Segments: 3})
	require.NoError(t, err)
	require.Positive(t, dry.Changed)
	require.Empty(t, all(t, 10, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) }))

	res, err := f.Migrate(ctx, store.MigrateOptions{Segments: 3})
	require.NoError(t, err)
	require.Equal(t, dry.Changed, res.Changed, "the dry run counted what the run did")
	require.Positive(t, res.Scanned)

	// The access patterns find them now: what Ann paid (GSI3), what Ben owes
	// (GSI1, through the backfilled participant record), what Ben paid back.
	paid := all(t, 10, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) })
	require.Len(t, paid, 1)
	require.Equal(t, expenseID, paid[0].ID)
	require.Equal(t, 1, paid[0].Version)
	owes := all(t, 10, func(a store.PageArgs) (store.Page[store.Share], error) { return f.ListUserShares(ctx, "2", a) })
	require.Len(t, owes, 1)
	require.Equal(t, "15.00", owes[0].Amount.String())
	require.Equal(t, "Old flat", owes[0].GroupTitle)
	settled := all(t, 10, func(a store.PageArgs) (store.Page[store.Settlement], error) {
		return f.ListUserSettlements(ctx, "2", a)
	})
	require.Len(t, settled, 1)
	require.Equal(t, settlementID, settled[0].ID)
	revs, err := f.ListRevisions(ctx, groupID, expenseID)
	require.NoError(t, err)
	require.Len(t, revs, 1)
	require.Equal(t, store.RevisionCreated, revs[0].Action)
	require.Equal(t, "1", revs[0].EditorID)

	// The group got a ledger and balances equal to a recomputation.
	require.Equal(t, map[string]string{"1": "10.00", "2": "-10.00"}, f.nets(groupID))
	re, err := f.RecomputeBalances(ctx, groupID)
	require.NoError(t, err)
	require.Empty(t, re.Problems)
	gb, err := f.GetBalances(ctx, []string{groupID})
	require.NoError(t, err)
	require.True(t, gb[0].Book(usd).Equal(re.Books[usd]))
	require.Equal(t, []string{"1", "2"}, gb[0].MemberIDs)
	broken, err := f.VerifyChain(ctx, groupID)
	require.NoError(t, err)
	require.Empty(t, broken, "no events yet is a sound chain")

	// Running it again changes nothing, whether it resumes or starts over.
	again, err := f.Migrate(ctx, store.MigrateOptions{Segments: 3})
	require.NoError(t, err)
	require.Equal(t, store.MigrateResult{AlreadyDone: 3}, again)
	again, err = f.Migrate(ctx, store.MigrateOptions{Segments: 3, Restart: true})
	require.NoError(t, err)
	require.Zero(t, again.Changed)

	// The migrated expense can be edited like any other, and the history
	// continues from its first revision.
	e, err := f.getExpense(expenseID)
	require.NoError(t, err)
	next := equalExpense(store.Group{ID: groupID}, "1", "40.00", "1", "2")
	_, err = f.UpdateExpense(ctx, e, next, "Old flat", "2")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"1": "15.00", "2": "-15.00"}, f.nets(groupID))
	revs, err = f.ListRevisions(ctx, groupID, expenseID)
	require.NoError(t, err)
	require.Len(t, revs, 2)
	g, err := f.getGroup(fresh.ID)
	require.NoError(t, err)
	require.Equal(t, 1, g.Version)
}

// TestMigrateContinuesWhereItStopped: a run stopped after its first page
// continues from there on the next run and finishes the work.
func TestMigrateContinuesWhereItStopped(t *testing.T) {
	f := newFixture(t)
	const groupID = "0a0b0c0d-0000-4000-8000-000000000002"
	expenseID, _ := oldGroup(t, f, groupID)

	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	first, err := f.Migrate(stop, store.MigrateOptions{Segments: 1, PageSize: 2, Progress: func(store.MigrateProgress) { cancel() }})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 2, first.Scanned)

	rest, err := f.Migrate(ctx, store.MigrateOptions{Segments: 1, PageSize: 2})
	require.NoError(t, err)
	require.Equal(t, 5, first.Scanned+rest.Scanned, "every item read once in all")

	paid := all(t, 10, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) })
	require.Len(t, paid, 1)
	require.Equal(t, expenseID, paid[0].ID)
	require.Equal(t, map[string]string{"1": "10.00", "2": "-10.00"}, f.nets(groupID))
}

// TestMigrateLeavesAnExpenseTheServerChanged: the server deletes or edits an
// old expense after the migration's Scan read it and before the migration
// writes. The migration must then leave it alone: participant records built
// from the old content would list Ben as owing for an expense that is gone,
// or that no longer involves him.
func TestMigrateLeavesAnExpenseTheServerChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f fixture, e store.Expense) error
	}{
		{"deleted", func(f fixture, e store.Expense) error {
			_, err := f.DeleteExpense(ctx, e, "1")
			return err
		}},
		{"edited", func(f fixture, e store.Expense) error {
			_, err := f.UpdateExpense(ctx, e, equalExpense(store.Group{ID: e.GroupID}, "1", "40.00", "1"), "Roommates", "1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			g := f.group("1", "2") // of today's format: only the expense is old
			expenseID := g.ID[:8] + "-e000-4000-8000-000000000001"
			putItems(t, f, oldExpenseItem(g.ID, expenseID))
			e, err := f.getExpense(expenseID)
			require.NoError(t, err)

			// The server's change lands just before the migration's first write.
			var once sync.Once
			var changeErr error
			race := dynamotest.NewFault(func(op string, _ int) error {
				if op == "PutItem" || op == "UpdateItem" || op == "TransactWriteItems" {
					once.Do(func() { changeErr = tc.change(f, e) })
				}
				return nil
			})
			m := store.New(dynamotest.Client(t, race.Option()), f.Table(), store.Options{})
			res, err := m.Migrate(ctx, store.MigrateOptions{Segments: 1})
			require.NoError(t, err)
			require.NoError(t, changeErr)

			parts, err := f.ListParticipants(ctx, g.ID, expenseID)
			require.NoError(t, err)
			require.Empty(t, parts, "no participant record outlives the content it was built from")
			require.Empty(t, all(t, 10, func(a store.PageArgs) (store.Page[store.Share], error) { return f.ListUserShares(ctx, "2", a) }))
			require.Zero(t, res.Changed, "the server wrote the expense in the current format meanwhile")
		})
	}
}

// A group tied to a Telegram chat before chats had items of their own gets
// its CHAT# item, so the webhook finds it and no other group can take the
// chat; when two old groups name one chat, the first keeps it.
func TestMigrateGivesOldChatsTheirItem(t *testing.T) {
	f := newFixture(t)
	const chat = "-1001234567890"
	g1, g2 := "a1000000-0000-4000-8000-000000000001", "a2000000-0000-4000-8000-000000000002"
	for _, g := range []string{g1, g2} {
		oldGroup(t, f, g)
	}
	putItems(t, f, map[string]types.AttributeValue{"PK": sAttr("GROUP#" + g1), "SK": sAttr("METADATA"), "id": sAttr(g1), "title": sAttr("Old flat"),
		"currency": sAttr("USD"), "createdAt": sAttr("2023-05-01T10:00:00.000Z"), "memberCount": nAttr("2"), "chatId": sAttr(chat)})
	putItems(t, f, map[string]types.AttributeValue{"PK": sAttr("GROUP#" + g2), "SK": sAttr("METADATA"), "id": sAttr(g2), "title": sAttr("Same chat"),
		"currency": sAttr("USD"), "createdAt": sAttr("2023-05-01T10:00:00.000Z"), "memberCount": nAttr("2"), "chatId": sAttr(chat)})
	found, err := f.GroupOfChat(ctx, chat)
	require.NoError(t, err)
	require.Empty(t, found, "before the migration nothing finds the chat")

	_, err = f.Migrate(ctx, store.MigrateOptions{Segments: 1})
	require.NoError(t, err)
	found, err = f.GroupOfChat(ctx, chat)
	require.NoError(t, err)
	require.Contains(t, []string{g1, g2}, found, "one of them keeps it")

	// Another group cannot take the chat now; a second run changes nothing.
	g3 := f.group("1")
	_, err = f.ConnectTelegramChat(ctx, g3.ID, chat, "1", "en")
	require.ErrorIs(t, err, store.ErrConflict)
	again, err := f.Migrate(ctx, store.MigrateOptions{Segments: 1})
	require.NoError(t, err)
	require.Zero(t, again.Changed)
	kept, err := f.GroupOfChat(ctx, chat)
	require.NoError(t, err)
	require.Equal(t, found, kept)
}
