package store_test

import (
	"errors"
	"slices"
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

// spendView is a summary as a test compares it: day, currency, total, count,
// categories, paid and shares, all as strings.
type spendView struct {
	Day, Currency, Total string
	Count                int64
	Category, Paid       map[string]string
	Share                map[string]string
}

func (f fixture) spending(groupID, currency string) []spendView {
	f.t.Helper()
	days, err := f.ListSpending(ctx, groupID, "2000-01-01", "2100-12-31", currency)
	require.NoError(f.t, err)
	var out []spendView
	str := func(m map[string]money.Amount) map[string]string {
		s := map[string]string{}
		for k, v := range m {
			s[k] = v.String()
		}
		return s
	}
	for _, d := range days {
		out = append(out, spendView{Day: d.Day, Currency: d.Currency.Code(), Total: d.Total.String(), Count: d.Count,
			Category: str(d.ByCategory), Paid: str(d.Paid), Share: str(d.Share)})
	}
	drift, err := f.SpendingDrift(ctx, groupID)
	require.NoError(f.t, err)
	require.Empty(f.t, drift, "the summaries are what the expense items say")
	return out
}

// TestSpendingFollowsEveryExpenseWrite: a creation, edits in place, edits
// moving the day and the currency, a deletion and a restoration each keep
// the day's summary equal to a recomputation from the expenses.
func TestSpendingFollowsEveryExpenseWrite(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "30.00", "1", "2", "3")
	require.Equal(t, "2024-01-20", e.SpentOn)
	f.expense(g, "2", "10.00", "2") // the same day: one summary
	day := func(total string, count int64, cat, paid, share map[string]string) spendView {
		return spendView{Day: "2024-01-20", Currency: "USD", Total: total, Count: count, Category: cat, Paid: paid, Share: share}
	}
	require.Equal(t, []spendView{day("40.00", 2, map[string]string{"food": "40.00"},
		map[string]string{"1": "30.00", "2": "10.00"}, map[string]string{"1": "10.00", "2": "20.00", "3": "10.00"})}, f.spending(g.ID, ""))

	// An edit on the same day is one update with the net change.
	next := equalExpense(g, "3", "60.00", "1", "2")
	next.Category = ""
	e, err := f.UpdateExpense(ctx, e, next, g.Title, "1")
	require.NoError(t, err)
	require.Equal(t, []spendView{day("70.00", 2, map[string]string{"": "60.00", "food": "10.00"},
		map[string]string{"2": "10.00", "3": "60.00"}, map[string]string{"1": "30.00", "2": "40.00"})}, f.spending(g.ID, ""))

	// Moving it to another day, then to another currency: subtract, add.
	moved := e
	moved.SpentAt = time.Date(2024, 1, 5, 12, 0, 0, 0, time.UTC)
	e, err = f.UpdateExpense(ctx, e, moved, g.Title, "1")
	require.NoError(t, err)
	require.Equal(t, "2024-01-05", e.SpentOn)
	got := f.spending(g.ID, "")
	require.Len(t, got, 2)
	require.Equal(t, "2024-01-05", got[0].Day)
	require.Equal(t, "60.00", got[0].Total)
	require.Equal(t, "10.00", got[1].Total)
	require.Equal(t, map[string]string{"2": "10.00"}, got[1].Share, "zero figures are left out")

	eur := e
	eur.Splits = slices.Clone(e.Splits)
	eur.Amount = euros("60.00")
	for i := range eur.Splits {
		eur.Splits[i].Amount = euros("30.00")
	}
	eur.Payers = nil
	e, err = f.UpdateExpense(ctx, e, eur, g.Title, "1")
	require.NoError(t, err)
	got = f.spending(g.ID, "")
	require.Len(t, got, 2)
	require.Equal(t, []string{"2024-01-05", "EUR", "60.00"}, []string{got[0].Day, got[0].Currency, got[0].Total})
	require.Len(t, f.spending(g.ID, "EUR"), 1, "a currency asked for is filtered")
	require.Len(t, f.spending(g.ID, "USD"), 1)

	// Deleted, it leaves its day (a summary counting nothing is left out);
	// restored, it comes back.
	deleted, err := f.DeleteExpense(ctx, e, "1")
	require.NoError(t, err)
	require.Equal(t, []string{"USD"}, currencies(f.spending(g.ID, "")))
	_, err = f.RestoreExpense(ctx, deleted, g.Title, "1")
	require.NoError(t, err)
	require.Equal(t, []string{"EUR", "USD"}, currencies(f.spending(g.ID, "")))

	// Rebuilt from the items, nothing changes.
	n, err := f.RebuildSpending(ctx, g.ID)
	require.NoError(t, err)
	require.Zero(t, n)
}

func currencies(vs []spendView) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Currency)
	}
	return out
}

// TestSpentOnIsTheDayInTheGroupsZone: the day is counted in the group's zone
// when the expense is written; a later change of zone moves no expense, and
// an edit of spentAt counts its day in the zone the group has then.
func TestSpentOnIsTheDayInTheGroupsZone(t *testing.T) {
	f := newFixture(t)
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1"), TimeZone: "Asia/Tokyo"})
	require.NoError(t, err)
	stored, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, "Asia/Tokyo", stored.TimeZone)

	in := equalExpense(g, "1", "10.00", "1")
	in.TimeZone = g.TimeZone
	e, err := f.CreateExpense(ctx, g.Title, in, "") // 18:30 UTC is 03:30 the next day in Tokyo
	require.NoError(t, err)
	require.Equal(t, "2024-01-21", e.SpentOn)

	tz := "America/Los_Angeles"
	g, err = f.UpdateGroup(ctx, stored, store.GroupChange{TimeZone: &tz}, "1")
	require.NoError(t, err)
	next := e
	next.Description, next.TimeZone = "Sushi", g.TimeZone
	e, err = f.UpdateExpense(ctx, e, next, g.Title, "1")
	require.NoError(t, err)
	require.Equal(t, "2024-01-21", e.SpentOn, "an edit that keeps spentAt keeps the day")

	next = e
	next.SpentAt, next.TimeZone = e.SpentAt.Add(time.Minute), g.TimeZone
	e, err = f.UpdateExpense(ctx, e, next, g.Title, "1")
	require.NoError(t, err)
	require.Equal(t, "2024-01-20", e.SpentOn, "10:31 in Los Angeles")
	read, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Equal(t, "2024-01-20", read.SpentOn, "stored")
	got := f.spending(g.ID, "")
	require.Len(t, got, 1)
	require.Equal(t, "2024-01-20", got[0].Day)

	bad := equalExpense(g, "1", "10.00", "1")
	bad.TimeZone = "Mars/Olympus"
	_, err = f.CreateExpense(ctx, g.Title, bad, "")
	require.ErrorContains(t, err, "Mars/Olympus")
}

// TestFailedExpenseWritesLeaveSummariesAlone: the summary update is in the
// expense's transaction, so a write that fails changes no summary.
func TestFailedExpenseWritesLeaveSummariesAlone(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "30.00", "1", "2")
	before := f.spending(g.ID, "")

	_, err := f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "5.00", "1", "9"), "")
	require.ErrorIs(t, err, store.ErrNotFound, "9 is not a member")
	_, err = f.UpdateExpense(ctx, e, equalExpense(g, "1", "99.00", "1"), g.Title, "1")
	require.NoError(t, err)
	after := f.spending(g.ID, "")
	_, err = f.UpdateExpense(ctx, e, equalExpense(g, "1", "1.00", "1"), g.Title, "1")
	require.ErrorIs(t, err, store.ErrConflict, "a stale version")
	_, err = f.DeleteExpense(ctx, e, "1")
	require.ErrorIs(t, err, store.ErrConflict, "a stale version")
	require.Equal(t, after, f.spending(g.ID, ""))
	require.NotEqual(t, before, after)
}

// TestRebuildSpending: summaries lost or wrong (as before an upgrade, or
// after a bug) are found by SpendingDrift and rewritten by RebuildSpending;
// an expense item from before days were stored counts on the UTC day of its
// spentAt; and an expense written while the rebuild works makes it read
// again rather than write a stale figure.
func TestRebuildSpending(t *testing.T) {
	var concurrent func()
	fault := dynamotest.NewFault(func(op string, n int) error {
		if op == "TransactWriteItems" && concurrent != nil {
			c := concurrent
			concurrent = nil
			c()
		}
		return nil
	})
	db := dynamotest.Client(t, fault.Option())
	table := dynamotest.Table(t)
	c := &clock{t: time.Date(2024, 1, 20, 18, 30, 0, 0, time.UTC)}
	f := fixture{Store: store.New(db, table, store.Options{CursorSecret: []byte("k"), Now: c.Now}), t: t}
	g := f.group("1", "2")
	e := f.expense(g, "1", "30.00", "1", "2")
	f.expense(g, "2", "8.00", "1")
	want := f.spending(g.ID, "")

	// Lose the summary and the stored day, as items written before them.
	pk := &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": pk, "SK": &types.AttributeValueMemberS{Value: "SPEND#2024-01-20#USD"}}})
	require.NoError(t, err)
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": pk, "SK": &types.AttributeValueMemberS{Value: "TX#" + e.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z") + "#" + e.ID}},
		UpdateExpression: aws.String("REMOVE spentOn")})
	require.NoError(t, err)
	// And a stale summary no expense backs.
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
		"PK": pk, "SK": &types.AttributeValueMemberS{Value: "SPEND#2023-05-01#USD"},
		"day": &types.AttributeValueMemberS{Value: "2023-05-01"}, "currency": &types.AttributeValueMemberS{Value: "USD"},
		"total": &types.AttributeValueMemberN{Value: "100"}, "count": &types.AttributeValueMemberN{Value: "1"}}})
	require.NoError(t, err)
	read, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Equal(t, "2024-01-20", read.SpentOn, "the UTC day of spentAt")

	drift, err := f.SpendingDrift(ctx, g.ID)
	require.NoError(t, err)
	require.Len(t, drift, 2)
	require.Contains(t, drift[0], "spending 2023-05-01 USD: stored count=1 total=100, the expenses say nothing")

	// An expense lands between the rebuild's reads and its write.
	concurrent = func() {
		_, err := store.New(dynamotestClient(t), table, store.Options{Now: c.Now}).CreateExpense(ctx, g.Title, equalExpense(g, "2", "2.00", "2"), "")
		require.NoError(t, err)
	}
	n, err := f.RebuildSpending(ctx, g.ID)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	got := f.spending(g.ID, "")
	require.Len(t, got, 1)
	require.Equal(t, "40.00", got[0].Total, "the concurrent expense is counted once")
	require.Equal(t, int64(3), got[0].Count)
	require.NotEqual(t, want, got)

	n, err = f.RebuildSpending(ctx, g.ID)
	require.NoError(t, err)
	require.Zero(t, n, "run again it changes nothing")
	require.False(t, errors.Is(err, store.ErrConflict))
}

// TestListSpendingIsOneQuery: a year of a busy group's summaries is one
// DynamoDB call.
func TestListSpendingIsOneQuery(t *testing.T) {
	var counter dynamotest.Counter
	c := &clock{t: time.Date(2024, 1, 20, 18, 30, 0, 0, time.UTC)}
	f := fixture{Store: store.New(dynamotest.Client(t, counter.Option()), dynamotest.Table(t), store.Options{CursorSecret: []byte("k"), Now: c.Now}), t: t}
	g := f.group("1", "2")
	for i := range 60 {
		e := equalExpense(g, "1", "3.00", "1", "2")
		e.SpentAt = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, i*5)
		_, err := f.CreateExpense(ctx, g.Title, e, "")
		require.NoError(t, err)
	}
	counter.Reset()
	days, err := f.ListSpending(ctx, g.ID, "2024-01-01", "2024-12-31", "")
	require.NoError(t, err)
	require.Len(t, days, 60)
	require.Equal(t, 1, counter.Total())
}

func euros(s string) money.Amount {
	a, err := money.ParseAmount(s, money.MustCurrency("EUR"))
	if err != nil {
		panic(err)
	}
	return a
}

// TestClaimMovesSpendingToTheClaimer: a placeholder's claim rewrites its
// expenses as edits, so the summaries' paid and share figures move to the
// user who claims it, and still equal a recomputation from the items; a
// deleted expense it was on, restored after the claim, counts for the user.
func TestClaimMovesSpendingToTheClaimer(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	ph, err := f.AddPlaceholder(ctx, g.ID, "Carol", "1")
	require.NoError(t, err)
	f.expense(g, ph.UserID, "30.00", "1", ph.UserID)
	gone, err := f.DeleteExpense(ctx, f.expense(g, "1", "8.00", ph.UserID), "1")
	require.NoError(t, err)
	_, _, err = f.JoinGroup(ctx, g.ID, user("3"))
	require.NoError(t, err)
	claimer, err := f.getMember(g.ID, "3")
	require.NoError(t, err)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, claimer)
	require.NoError(t, err)

	got := f.spending(g.ID, "")
	require.Len(t, got, 1)
	require.Equal(t, map[string]string{"3": "30.00"}, got[0].Paid)
	require.Equal(t, map[string]string{"1": "15.00", "3": "15.00"}, got[0].Share)

	moved, err := f.getExpense(gone.ID)
	require.NoError(t, err)
	_, err = f.RestoreExpense(ctx, moved, g.Title, "1")
	require.NoError(t, err)
	got = f.spending(g.ID, "")
	require.Equal(t, map[string]string{"1": "15.00", "3": "23.00"}, got[0].Share)
	n, err := f.RebuildSpending(ctx, g.ID)
	require.NoError(t, err)
	require.Zero(t, n)
}
