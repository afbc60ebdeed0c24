package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/freetext"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// noon is noon UTC of a day.
func noon(s string) time.Time { return day(s).Add(12 * time.Hour) }

// findFixture is a group of users 1, 2 and 3 with expenses of every kind a
// filter tells apart, recorded in this order (so newest created last):
//
//	rent   1 paid 900.00 USD for 1,2,3   spent 2024-01-05  "rent"     "Rent for January"
//	cafe   2 paid  12.50 USD for 2,3     spent 2024-01-10  "food"     "Café Roma"
//	sushi  3 paid 4500 JPY for 1,3       spent 2024-01-12  "food"     "東京の寿司"
//	taxi   1, 2 paid 20+10 EUR for 1,2   spent 2024-01-03  (none)     "Такси в аэропорт"
//	old    1 paid 30.00 USD for 1,2      spent 2023-12-24  "gifts"    "Presents" (backdated)
type findFixture struct {
	fixture
	g                            store.Group
	rent, cafe, sushi, taxi, old store.Expense
}

func newFindFixture(t *testing.T, optFns ...func(*dynamodb.Options)) *findFixture {
	f := &findFixture{fixture: newFixture(t, optFns...)}
	f.g = f.group("1", "2", "3")
	jpy, eur := money.MustCurrency("JPY"), money.MustCurrency("EUR")
	add := func(payer, total, desc, cat, spent string, users ...string) store.Expense {
		e := equalExpense(f.g, payer, total, users...)
		e.Description, e.Category, e.SpentAt = desc, cat, noon(spent)
		got, err := f.CreateExpense(ctx, f.g.Title, e, "")
		require.NoError(t, err)
		return got
	}
	f.rent = add("1", "900.00", "Rent for January", "rent", "2024-01-05", "1", "2", "3")
	f.cafe = add("2", "12.50", "Café Roma", "food", "2024-01-10", "2", "3")
	sushi := equalExpense(f.g, "3", "0", "1", "3")
	sushi.Amount = money.NewAmount(4500, jpy)
	sushi.Splits[0].Amount, sushi.Splits[1].Amount = money.NewAmount(2250, jpy), money.NewAmount(2250, jpy)
	sushi.Description, sushi.Category, sushi.SpentAt = "東京の寿司", "food", day("2024-01-12")
	var err error
	f.sushi, err = f.CreateExpense(ctx, f.g.Title, sushi, "")
	require.NoError(t, err)
	taxi := store.Expense{
		GroupID: f.g.ID, Amount: money.NewAmount(3000, eur), Description: "Такси в аэропорт", SplitType: store.SplitExact,
		CreatedBy: "1", SpentAt: noon("2024-01-03"),
		Payers: []store.Payment{{UserID: "1", UserName: "User 1", Amount: money.NewAmount(2000, eur)}, {UserID: "2", UserName: "User 2", Amount: money.NewAmount(1000, eur)}},
		Splits: []store.Split{{UserID: "1", UserName: "User 1", Amount: money.NewAmount(1500, eur)}, {UserID: "2", UserName: "User 2", Amount: money.NewAmount(1500, eur)}},
	}
	f.taxi, err = f.CreateExpense(ctx, f.g.Title, taxi, "")
	require.NoError(t, err)
	f.old = add("1", "30.00", "Presents", "gifts", "2023-12-24", "1", "2")
	return f
}

func (f *findFixture) find(filter store.ExpenseFilter) []string {
	f.t.Helper()
	got := all(f.t, 2, func(a store.PageArgs) (store.Page[store.Expense], error) {
		return f.FindExpenses(ctx, f.g.Scope(), filter, a)
	})
	return descriptions(got)
}

func descriptions(es []store.Expense) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Description)
	}
	return out
}

func decimal(s string) *money.Decimal {
	d := dec(s)
	return &d
}

func ptr[T any](v T) *T { return &v }

func TestFindExpensesByEveryFilter(t *testing.T) {
	t.Parallel()
	f := newFindFixture(t)
	require.True(t, f.g.DaysKept, "a new group keeps its days")
	for name, tc := range map[string]struct {
		filter store.ExpenseFilter
		want   []string
	}{
		"none: newest created first": {store.ExpenseFilter{}, []string{"Presents", "Такси в аэропорт", "東京の寿司", "Café Roma", "Rent for January"}},
		"days: newest spent first, the backdated one by its day": {store.ExpenseFilter{From: "2023-12-01", To: "2024-01-10"},
			[]string{"Café Roma", "Rent for January", "Такси в аэропорт", "Presents"}},
		"one day":                  {store.ExpenseFilter{From: "2024-01-05", To: "2024-01-05"}, []string{"Rent for January"}},
		"from only":                {store.ExpenseFilter{From: "2024-01-06"}, []string{"東京の寿司", "Café Roma"}},
		"to only":                  {store.ExpenseFilter{To: "2024-01-03"}, []string{"Такси в аэропорт", "Presents"}},
		"no day in range":          {store.ExpenseFilter{From: "2024-02-01", To: "2024-02-28"}, []string{}},
		"category":                 {store.ExpenseFilter{Category: ptr("food")}, []string{"東京の寿司", "Café Roma"}},
		"without a category":       {store.ExpenseFilter{Category: ptr("")}, []string{"Такси в аэропорт"}},
		"payer, any of several":    {store.ExpenseFilter{PayerID: "2"}, []string{"Такси в аэропорт", "Café Roma"}},
		"participant with a share": {store.ExpenseFilter{ParticipantID: "3"}, []string{"東京の寿司", "Café Roma", "Rent for January"}},
		"currency":                 {store.ExpenseFilter{Currency: "USD"}, []string{"Presents", "Café Roma", "Rent for January"}},
		"amount range in the currency": {store.ExpenseFilter{Currency: "USD", MinAmount: decimal("12.50"), MaxAmount: decimal("30")},
			[]string{"Presents", "Café Roma"}},
		"amounts as decimals in any currency": {store.ExpenseFilter{MinAmount: decimal("30")}, []string{"Presents", "Такси в аэропорт", "東京の寿司", "Rent for January"}},
		"max only":                            {store.ExpenseFilter{MaxAmount: decimal("12.5")}, []string{"Café Roma"}},
		"search: case and accents":            {store.ExpenseFilter{Search: freetext.Words("CAFE")}, []string{"Café Roma"}},
		"search: a word's start":              {store.ExpenseFilter{Search: freetext.Words("jan rent")}, []string{"Rent for January"}},
		"search: Cyrillic":                    {store.ExpenseFilter{Search: freetext.Words("ТАКСИ")}, []string{"Такси в аэропорт"}},
		"search: Japanese":                    {store.ExpenseFilter{Search: freetext.Words("寿司")}, []string{"東京の寿司"}},
		"search: every word":                  {store.ExpenseFilter{Search: freetext.Words("cafe pizza")}, []string{}},
		"combined": {store.ExpenseFilter{From: "2024-01-01", To: "2024-01-31", Category: ptr("food"), ParticipantID: "2", Currency: "USD"},
			[]string{"Café Roma"}},
		"deleted: none yet": {store.ExpenseFilter{Deleted: true}, []string{}},
	} {
		t.Run(name, func(t *testing.T) {
			f.t = t
			require.Equal(t, tc.want, f.find(tc.filter))
		})
	}
}

func TestFindExpensesFollowsEditsDeletionsAndRestores(t *testing.T) {
	t.Parallel()
	f := newFindFixture(t)
	january := store.ExpenseFilter{From: "2024-01-01", To: "2024-01-31"}
	december := store.ExpenseFilter{From: "2023-12-01", To: "2023-12-31"}

	// An edit of spentAt moves the expense to its new day.
	next := f.cafe
	next.SpentAt = noon("2023-12-31")
	moved, err := f.UpdateExpense(ctx, f.cafe, next, f.g.Title, "2")
	require.NoError(t, err)
	require.Equal(t, []string{"東京の寿司", "Rent for January", "Такси в аэропорт"}, f.find(january))
	require.Equal(t, []string{"Café Roma", "Presents"}, f.find(december))
	// An edit that keeps the day keeps it.
	renamed := moved
	renamed.Description = "Café Roma, dessert"
	renamed, err = f.UpdateExpense(ctx, moved, renamed, f.g.Title, "2")
	require.NoError(t, err)
	require.Equal(t, []string{"Café Roma, dessert", "Presents"}, f.find(december))

	// Deleted: out of the live lists, in the deleted ones; restored: back.
	deleted, err := f.DeleteExpense(ctx, f.rent, "1")
	require.NoError(t, err)
	require.Equal(t, []string{"東京の寿司", "Такси в аэропорт"}, f.find(january))
	require.Equal(t, []string{"Rent for January"}, f.find(store.ExpenseFilter{Deleted: true}))
	require.Equal(t, []string{"Rent for January"}, f.find(store.ExpenseFilter{Deleted: true, From: "2024-01-05", To: "2024-01-05"}))
	require.Equal(t, []string{}, f.find(store.ExpenseFilter{Deleted: true, From: "2024-01-06"}))
	_, err = f.RestoreExpense(ctx, deleted, f.g.Title, "1")
	require.NoError(t, err)
	require.Equal(t, []string{"東京の寿司", "Rent for January", "Такси в аэропорт"}, f.find(january))
	require.Equal(t, []string{}, f.find(store.ExpenseFilter{Deleted: true}))
}

func TestFindExpensesSearchesComments(t *testing.T) {
	t.Parallel()
	f := newFindFixture(t)
	_, err := f.AddComment(ctx, f.rent.Ref(), store.Comment{GroupID: f.g.ID, ExpenseID: f.rent.ID, AuthorID: "2", AuthorName: "User 2", Body: "Paid to the LANDLORD via Überweisung"})
	require.NoError(t, err)
	gone, err := f.AddComment(ctx, f.cafe.Ref(), store.Comment{GroupID: f.g.ID, ExpenseID: f.cafe.ID, AuthorID: "2", AuthorName: "User 2", Body: "landlord's cousin"})
	require.NoError(t, err)
	_, err = f.DeleteComment(ctx, gone, "2")
	require.NoError(t, err)
	require.Equal(t, []string{"Rent for January"}, f.find(store.ExpenseFilter{Search: freetext.Words("landlord")}))
	require.Equal(t, []string{"Rent for January"}, f.find(store.ExpenseFilter{Search: freetext.Words("rent uberweisung")}), "words from both")
	require.Equal(t, []string{}, f.find(store.ExpenseFilter{Search: freetext.Words("cousin")}), "a deleted comment says nothing")
}

// Pages of every size hold exactly the matches, in order, without
// duplicates or gaps, and hasNext is false on the page with the last match
// even when items that do not match follow it.
func TestFindExpensesPagesExactly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	g := f.group("1", "2")
	var want []string
	for i := range 12 {
		e := equalExpense(g, "1", "10.00", "1", "2")
		e.Description, e.SpentAt = fmt.Sprint("e", i), day(fmt.Sprintf("2024-03-%02d", 12-i))
		if i%3 == 0 {
			e.Category = "match"
		}
		_, err := f.CreateExpense(ctx, g.Title, e, "")
		require.NoError(t, err)
	}
	for i := 11; i >= 0; i-- {
		if i%3 == 0 {
			want = append(want, fmt.Sprint("e", i))
		}
	}
	// The oldest (e0) matches and is created first: last in either order.
	for _, filter := range []store.ExpenseFilter{
		{Category: ptr("match")},
		{Category: ptr("match"), From: "2024-03-01", To: "2024-03-31"},
	} {
		order := want
		if filter.From != "" { // by day: e0 was spent last
			order = []string{"e0", "e3", "e6", "e9"}
		}
		for n := 1; n <= 5; n++ {
			got := all(t, n, func(a store.PageArgs) (store.Page[store.Expense], error) {
				return f.FindExpenses(ctx, g.Scope(), filter, a)
			})
			require.Equal(t, order, descriptions(got), "pages of %d", n)
		}
		p, err := f.FindExpenses(ctx, g.Scope(), filter, store.PageArgs{First: 4})
		require.NoError(t, err)
		require.Len(t, p.Items, 4)
		require.False(t, p.HasNext, "the last match is on the page")
	}
	// A cursor of one filter continues no other list.
	p, err := f.FindExpenses(ctx, g.Scope(), store.ExpenseFilter{Category: ptr("match")}, store.PageArgs{First: 1})
	require.NoError(t, err)
	_, err = f.FindExpenses(ctx, g.Scope(), store.ExpenseFilter{Category: ptr("other")}, store.PageArgs{First: 1, After: p.Cursors[0].String()})
	require.ErrorIs(t, err, store.ErrBadCursor)
}

// A range of days reads that range of day items and the page's expenses by
// key: one Query and one BatchGetItem, whatever else the group holds; a
// filter without days stops reading once the page and one more are found.
func TestFindExpensesCalls(t *testing.T) {
	t.Parallel()
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	g := f.group("1", "2")
	for i := range 30 {
		e := equalExpense(g, "1", "10.00", "1", "2")
		e.Description, e.SpentAt = fmt.Sprint("e", i), day(fmt.Sprintf("2024-04-%02d", 1+i%30))
		if i >= 20 {
			e.Category = "late"
		}
		_, err := f.CreateExpense(ctx, g.Title, e, "")
		require.NoError(t, err)
	}
	calls.Reset()
	p, err := f.FindExpenses(ctx, g.Scope(), store.ExpenseFilter{From: "2024-04-05", To: "2024-04-14"}, store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Len(t, p.Items, 5)
	require.True(t, p.HasNext)
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1}, calls.ByOperation())
	require.Equal(t, 6+5, calls.ItemsRead(), "six day items, five expenses")

	// The ten newest are the ten "late": a page of 5 needs 6 of them read.
	calls.Reset()
	p, err = f.FindExpenses(ctx, g.Scope(), store.ExpenseFilter{Category: ptr("late")}, store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Len(t, p.Items, 5)
	require.True(t, p.HasNext)
	require.Equal(t, map[string]int{"Query": 1}, calls.ByOperation())
	require.Equal(t, 6, calls.ItemsRead())
}

// A group from before day items is found by its days all the same, by
// reading it whole, until `migrate` writes its days and marks it.
func TestFindExpensesBeforeAndAfterMigrate(t *testing.T) {
	t.Parallel()
	f := newFindFixture(t)
	db := dynamotestClient(t)
	// Take the day items and the mark away, as in a group from before.
	out, err := db.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(f.Table()), KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :d)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sAttr("GROUP#" + f.g.ID), ":d": sAttr("DAY#")},
	})
	require.NoError(t, err)
	require.Len(t, out.Items, 5)
	for _, it := range out.Items {
		_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.Table()), Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}})
		require.NoError(t, err)
	}
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.Table()), Key: map[string]types.AttributeValue{"PK": sAttr("GROUP#" + f.g.ID), "SK": sAttr("METADATA")},
		UpdateExpression: aws.String("REMOVE daysKept"),
	})
	require.NoError(t, err)
	g, err := f.getGroup(f.g.ID)
	require.NoError(t, err)
	require.False(t, g.DaysKept)

	range_ := store.ExpenseFilter{From: "2023-12-01", To: "2024-01-10"}
	want := []string{"Café Roma", "Rent for January", "Такси в аэропорт", "Presents"}
	before := all(t, 1, func(a store.PageArgs) (store.Page[store.Expense], error) {
		return f.FindExpenses(ctx, g.Scope(), range_, a)
	})
	require.Equal(t, want, descriptions(before), "read whole, in the same order")

	// A cursor from before the migration continues after it.
	p, err := f.FindExpenses(ctx, g.Scope(), range_, store.PageArgs{First: 2})
	require.NoError(t, err)
	r, err := f.Migrate(ctx, store.MigrateOptions{Segments: 1})
	require.NoError(t, err)
	require.Positive(t, r.Changed)
	g, err = f.getGroup(f.g.ID)
	require.NoError(t, err)
	require.True(t, g.DaysKept)
	rest, err := f.FindExpenses(ctx, g.Scope(), range_, store.PageArgs{First: 5, After: p.Cursors[1].String()})
	require.NoError(t, err)
	require.Equal(t, want[2:], descriptions(rest.Items))
	require.False(t, rest.HasNext)

	after := all(t, 1, func(a store.PageArgs) (store.Page[store.Expense], error) {
		return f.FindExpenses(ctx, g.Scope(), range_, a)
	})
	require.Equal(t, want, descriptions(after), "read by its days")
	again, err := f.Migrate(ctx, store.MigrateOptions{Segments: 1, Restart: true})
	require.NoError(t, err)
	require.Zero(t, again.Changed, "a second run changes nothing")
}

func TestFindUserExpensesMergesGroups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.group("1", "2"), f.group("1", "3")
	var want []string
	for i := range 8 {
		g := []store.Group{a, b}[i%3%2]
		e := equalExpense(g, "1", "5.00", "1")
		e.Description, e.SpentAt = fmt.Sprint("e", i), day(fmt.Sprintf("2024-05-%02d", 10-i))
		if i != 4 {
			e.Category = "x"
		}
		_, err := f.CreateExpense(ctx, g.Title, e, "")
		require.NoError(t, err)
	}
	for i := 7; i >= 0; i-- {
		if i != 4 {
			want = append(want, fmt.Sprint("e", i))
		}
	}
	scopes := []store.ExpenseScope{a.Scope(), b.Scope()}
	for n := 1; n <= 4; n++ {
		got := all(t, n, func(p store.PageArgs) (store.Page[store.Expense], error) {
			return f.FindUserExpenses(ctx, "1", scopes, store.ExpenseFilter{Category: ptr("x")}, p)
		})
		require.Equal(t, want, descriptions(got), "pages of %d", n)
		got = all(t, n, func(p store.PageArgs) (store.Page[store.Expense], error) {
			return f.FindUserExpenses(ctx, "1", scopes, store.ExpenseFilter{Category: ptr("x"), From: "2024-05-01"}, p)
		})
		require.Equal(t, []string{"e0", "e1", "e2", "e3", "e5", "e6", "e7"}, descriptions(got), "by day, pages of %d", n)
	}
}
