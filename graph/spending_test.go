package graph_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// addSpread records n expenses in the group, one every day or so over 2025,
// alternately in USD and EUR, paid by one of the trio and shared with
// another, eight at a time.
func addSpread(t testing.TB, s *store.Store, group string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				cur := money.MustCurrency([]string{"USD", "EUR"}[i%2])
				a := money.NewAmount(int64(100+i%997), cur)
				parts, _ := money.SplitEqual(a, 2)
				payer, other := []string{"111", "222", "333"}[i%3], []string{"222", "333", "111"}[i%3]
				_, err := s.CreateExpense(context.Background(), "Trip", store.Expense{
					GroupID: group, PayerID: payer, PayerName: payer, Amount: a, Description: fmt.Sprint("expense ", i),
					Category: []string{"", "food", "rent"}[i%3], SplitType: store.SplitEqual, CreatedBy: payer,
					SpentAt: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * 29 * time.Hour),
					Splits:  []store.Split{{UserID: payer, UserName: payer, Amount: parts[0]}, {UserID: other, UserName: other, Amount: parts[1]}},
				}, "")
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// spendingOverAYear is the query `make bench` measures too.
const spendingOverAYear = `query($g: ID!) { group(id: $g) {
	spending(from: "2025-01-01", to: "2025-12-31", by: MONTH) {
		start currency total count byCategory { category amount } byMember { member { userId } paid share } } } }`

// TestGroupSpendingOverAYearIsOneQuery: a year of a group of 300 expenses is
// one DynamoDB Query of its summaries, beside the reads of the group and the
// viewer's membership that every group(id:) makes.
func TestGroupSpendingOverAYearIsOneQuery(t *testing.T) {
	api, group, alice, _, _ := trio(t)
	addSpread(t, api.Store, group, 300)
	api.Calls.Reset()
	alice.Must(nil, `query($g: ID!) { group(id: $g) { id } }`, "g", group)
	base := api.Calls.ByOperation() // what reading the group and the viewer's membership takes
	api.Calls.Reset()
	var out struct {
		Group struct {
			Spending []struct {
				Start, Currency, Total string
				Count                  int
			}
		}
	}
	alice.Must(&out, spendingOverAYear, "g", group)
	base["Query"]++ // the summaries: one Query
	require.Equal(t, base, api.Calls.ByOperation())
	count := 0
	for _, b := range out.Group.Spending {
		count += b.Count
	}
	require.Equal(t, 300, count)
	require.Len(t, out.Group.Spending, 24, "12 months in 2 currencies")
	require.Equal(t, []string{"2025-01-01", "EUR"}, []string{out.Group.Spending[0].Start, out.Group.Spending[0].Currency})
	require.Equal(t, []string{"2025-01-01", "USD"}, []string{out.Group.Spending[1].Start, out.Group.Spending[1].Currency})
}

// TestSpendingBucketsAndTimeZones: days counted in the group's zone, weeks
// from Monday, months from the 1st, a currency filter, categories and members,
// and the viewer's own share in User.spending.
func TestSpendingBucketsAndTimeZones(t *testing.T) {
	_, group, alice, bob, carol := trio(t)
	var g struct{ UpdateGroup struct{ TimeZone string } }
	alice.Must(&g, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, timeZone: "Asia/Tokyo"}) { timeZone } }`, "g", group)
	require.Equal(t, "Asia/Tokyo", g.UpdateGroup.TimeZone)

	add := func(by interface {
		Must(any, string, ...any)
	}, amount, currency, category, spentAt string, splits ...string) string {
		in := map[string]any{"groupId": group, "amount": amount, "currency": currency, "description": "x", "splitType": "EQUAL", "spentAt": spentAt}
		if category != "" {
			in["category"] = category
		}
		var list []any
		for _, u := range splits {
			list = append(list, map[string]any{"userId": u})
		}
		in["splits"] = list
		var out struct{ CreateExpense struct{ ID, SpentOn string } }
		by.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id spentOn } }`, "in", in)
		return out.CreateExpense.SpentOn
	}
	// Sunday 2025-03-09 15:30 UTC is Monday 00:30 in Tokyo.
	require.Equal(t, "2025-03-10", add(alice, "30.00", "USD", "food", "2025-03-09T15:30:00.000Z", "111", "222", "333"))
	require.Equal(t, "2025-03-09", add(bob, "10.00", "USD", "", "2025-03-09T14:30:00.000Z", "222"))
	require.Equal(t, "2025-03-31", add(carol, "500", "JPY", "fun", "2025-03-31T10:00:00.000Z", "111", "333"))

	type bucket struct {
		Start, Currency, Total string
		Count                  int
		ByCategory             []struct {
			Category *string
			Amount   string
		}
		ByMember []struct {
			Member      struct{ UserID string }
			Paid, Share string
		}
	}
	var out struct {
		Group struct{ Days, Weeks, Months, Usd []bucket }
		Me    struct{ Spending []bucket }
	}
	alice.Must(&out, `query($g: ID!) { group(id: $g) {
		days: spending(from: "2025-03-01", to: "2025-03-31") { ...b }
		weeks: spending(from: "2025-03-01", to: "2025-03-31", by: WEEK) { ...b }
		months: spending(from: "2025-01-01", to: "2025-12-31", by: MONTH) { ...b }
		usd: spending(from: "2025-03-01", to: "2025-03-31", currency: "usd", by: MONTH) { ...b } }
		me { spending(from: "2025-03-01", to: "2025-03-31", by: MONTH) { ...b } } }
		fragment b on SpendingBucket { start currency total count byCategory { category amount } byMember { member { userId } paid share } }`, "g", group)
	starts := func(bs []bucket) []string {
		var s []string
		for _, b := range bs {
			s = append(s, b.Start+" "+b.Currency+" "+b.Total)
		}
		return s
	}
	require.Equal(t, []string{"2025-03-09 USD 10.00", "2025-03-10 USD 30.00", "2025-03-31 JPY 500"}, starts(out.Group.Days))
	require.Equal(t, []string{"2025-03-03 USD 10.00", "2025-03-10 USD 30.00", "2025-03-31 JPY 500"}, starts(out.Group.Weeks), "weeks start on Monday")
	require.Equal(t, []string{"2025-03-01 JPY 500", "2025-03-01 USD 40.00"}, starts(out.Group.Months), "ordered by start, then currency")
	require.Equal(t, []string{"2025-03-01 USD 40.00"}, starts(out.Group.Usd))

	usd := out.Group.Usd[0]
	require.Equal(t, 2, usd.Count)
	require.Equal(t, "food", *usd.ByCategory[0].Category)
	require.Equal(t, "30.00", usd.ByCategory[0].Amount)
	require.Nil(t, usd.ByCategory[1].Category, "no category is null, listed last")
	require.Equal(t, "10.00", usd.ByCategory[1].Amount)
	members := map[string][2]string{}
	for _, m := range usd.ByMember {
		members[m.Member.UserID] = [2]string{m.Paid, m.Share}
	}
	require.Equal(t, map[string][2]string{"111": {"30.00", "10.00"}, "222": {"10.00", "20.00"}, "333": {"0.00", "10.00"}}, members)

	// Alice's own share: 10.00 USD of one expense, 250 JPY of another.
	require.Equal(t, []string{"2025-03-01 JPY 250", "2025-03-01 USD 10.00"}, starts(out.Me.Spending))
	require.Equal(t, 1, out.Me.Spending[1].Count)
	require.Empty(t, out.Me.Spending[1].ByMember)
}

// TestSpendingInputIsChecked: a range longer than SPENDING_MAX_DAYS, one
// that ends before it starts, a day that does not exist, an unknown currency
// or time zone are BAD_USER_INPUT naming what is wrong.
func TestSpendingInputIsChecked(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	for _, tc := range []struct{ query, says string }{
		{`spending(from: "2024-01-01", to: "2025-01-01") { start }`, "SPENDING_MAX_DAYS allows at most 366"},
		{`spending(from: "2025-02-01", to: "2025-01-01") { start }`, "ends (2025-01-01) before it starts"},
		{`spending(from: "2025-02-30", to: "2025-03-01") { start }`, `"2025-02-30" is not a Date`},
		{`spending(from: "2025-2-1", to: "2025-03-01") { start }`, `is not a Date`},
		{`spending(from: "2025-01-01", to: "2025-03-01", currency: "XXQ") { start }`, "XXQ"},
	} {
		res := alice.Do(`query($g: ID!) { group(id: $g) { `+tc.query+` } }`, "g", group)
		require.Equal(t, "BAD_USER_INPUT", res.Code(), tc.query)
		require.Contains(t, res.Errors[0].Message, tc.says)
	}
	var ok struct {
		Group struct{ Spending []struct{ Start string } }
	}
	alice.Must(&ok, `query($g: ID!) { group(id: $g) { spending(from: "2024-01-01", to: "2024-12-31") { start } } }`, "g", group)

	res := alice.Do(`mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, timeZone: "Mars/Olympus"}) { id } }`, "g", group)
	require.Equal(t, "BAD_USER_INPUT", res.Code())
	require.Contains(t, res.Errors[0].Message, "Mars/Olympus")
	res = alice.Do(`mutation { createGroup(input: {title: "x", currency: "USD", timeZone: "Local"}) { id } }`)
	require.Equal(t, "BAD_USER_INPUT", res.Code())
	var created struct{ CreateGroup struct{ TimeZone string } }
	alice.Must(&created, `mutation { createGroup(input: {title: "x", currency: "USD"}) { timeZone } }`)
	require.Equal(t, "UTC", created.CreateGroup.TimeZone)
	alice.Must(&created, `mutation { createGroup(input: {title: "x", currency: "USD", timeZone: "Europe/Berlin"}) { timeZone } }`)
	require.Equal(t, "Europe/Berlin", created.CreateGroup.TimeZone)
}

// BenchmarkGroupSpendingOverAYear reports what a year of a 300-expense
// group's spending costs per request (make bench): the DynamoDB calls in all
// (the group and membership read, the summaries) and the Queries of
// summaries among them, which stay at one however many expenses there are.
func BenchmarkGroupSpendingOverAYear(b *testing.B) {
	api := apitest.New(b)
	alice, bob, carol := api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	carol.Join(group)
	addSpread(b, api.Store, group, 300)
	alice.Must(nil, spendingOverAYear, "g", group)
	api.Calls.Reset()
	b.ReportAllocs()
	for b.Loop() {
		alice.Must(nil, spendingOverAYear, "g", group)
	}
	b.ReportMetric(float64(api.Calls.Total())/float64(b.N), "dynamodb-calls/op")
	b.ReportMetric(float64(api.Calls.ByOperation()["Query"])/float64(b.N), "summary-queries/op")
}
