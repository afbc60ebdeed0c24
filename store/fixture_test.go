package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

var ctx = context.Background()

// clock hands out strictly increasing times, one second apart, so that
// "newest first" has a known answer.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

type fixture struct {
	*store.Store
	t *testing.T
}

func dynamotestClient(t *testing.T) *dynamodb.Client { return dynamotest.Client(t) }

func newFixture(t *testing.T, optFns ...func(*dynamodb.Options)) fixture {
	t.Helper()
	c := &clock{t: time.Date(2024, 1, 20, 18, 30, 0, 0, time.UTC)}
	s := store.New(dynamotest.Client(t, optFns...), dynamotest.Table(t), store.Options{CursorSecret: []byte("k"), Now: c.Now})
	return fixture{Store: s, t: t}
}

// The single-item reads the tests make, through the batch reads the API
// uses: a missing item is ErrNotFound.

func (f fixture) getExpense(id string) (store.Expense, error) {
	return only(f.GetExpenses(ctx, []store.ExpenseRef{{ID: id}}))
}

func (f fixture) getSettlement(id string) (store.Settlement, error) {
	return only(f.GetSettlements(ctx, []store.SettlementRef{{ID: id}}))
}

func (f fixture) getGroup(id string) (store.Group, error) {
	return only(f.GetGroups(ctx, []string{id}))
}

func (f fixture) getMember(groupID, userID string) (store.Member, error) {
	return only(f.GetMembers(ctx, []store.MemberKey{{GroupID: groupID, UserID: userID}}))
}

// only is the result of a batch read of one key.
func only[T any](found []*T, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if found[0] == nil {
		return zero, store.ErrNotFound
	}
	return *found[0], nil
}

var usd = money.MustCurrency("USD")

func amount(s string) money.Amount {
	a, err := money.ParseAmount(s, usd)
	if err != nil {
		panic(err)
	}
	return a
}

func user(id string) store.NewMember {
	return store.NewMember{UserID: id, Name: "User " + id, Username: "u" + id}
}

// group creates a group whose first user is the creator and the rest join.
func (f fixture) group(users ...string) store.Group {
	f.t.Helper()
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "Roommates", Currency: usd, Creator: user(users[0])})
	require.NoError(f.t, err)
	for _, u := range users[1:] {
		_, joined, err := f.JoinGroup(ctx, g.ID, user(u))
		require.NoError(f.t, err)
		require.True(f.t, joined)
	}
	g.MemberCount = len(users)
	return g
}

// expense records an equal split of total among users, paid by payer.
func (f fixture) expense(g store.Group, payer, total string, users ...string) store.Expense {
	f.t.Helper()
	e, err := f.CreateExpense(ctx, g.Title, equalExpense(g, payer, total, users...), "")
	require.NoError(f.t, err)
	return e
}

func equalExpense(g store.Group, payer, total string, users ...string) store.Expense {
	parts, err := money.SplitEqual(amount(total), len(users))
	if err != nil {
		panic(err)
	}
	e := store.Expense{
		GroupID: g.ID, PayerID: payer, PayerName: "User " + payer, Amount: amount(total),
		Description: "Dinner", Category: "food", SplitType: store.SplitEqual, CreatedBy: payer,
	}
	for i, u := range users {
		e.Splits = append(e.Splits, store.Split{UserID: u, UserName: "User " + u, Amount: parts[i]})
	}
	return e
}

func (f fixture) settle(g store.Group, from, to, total string, status store.SettlementStatus) store.Settlement {
	f.t.Helper()
	st, err := f.CreateSettlement(ctx, store.Settlement{
		GroupID: g.ID, FromUserID: from, FromUserName: "User " + from, ToUserID: to, ToUserName: "User " + to,
		Amount: amount(total), Status: status,
	}, "")
	require.NoError(f.t, err)
	return st
}

// all pages through a list n items at a time, checking the page invariants,
// and returns every item in order.
func all[T any](t *testing.T, n int, list func(store.PageArgs) (store.Page[T], error)) []T {
	t.Helper()
	var out []T
	args := store.PageArgs{First: n}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000, "pagination does not end")
		p, err := list(args)
		require.NoError(t, err)
		require.Len(t, p.Cursors, len(p.Items))
		require.LessOrEqual(t, len(p.Items), n)
		require.Equal(t, args.After != "", p.HasPrevious)
		out = append(out, p.Items...)
		if !p.HasNext {
			// Exact: nothing follows the last cursor.
			if len(p.Cursors) > 0 {
				rest, err := list(store.PageArgs{First: n, After: p.Cursors[len(p.Cursors)-1].String()})
				require.NoError(t, err)
				require.Empty(t, rest.Items)
				require.False(t, rest.HasNext)
			}
			return out
		}
		require.Len(t, p.Items, n, "a page with more to follow is full")
		args.After = p.Cursors[len(p.Cursors)-1].String()
	}
}
