package loaders_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fracti/api/internal/dynamotest"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestMembersBatchAcrossTheBatchGetLimit(t *testing.T) {
	calls := &dynamotest.Counter{}
	s := dynamotest.Store(t, calls.Option())
	ctx := context.Background()
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: money.MustCurrency("USD"), Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)
	for i := 2; i <= 150; i++ {
		_, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: fmt.Sprint(i), Name: fmt.Sprint("U", i)})
		require.NoError(t, err)
	}

	l := loaders.New(s, 20*time.Millisecond)
	calls.Reset()
	keys := make([]store.MemberKey, 0, 160)
	for i := 1; i <= 160; i++ { // 150 members and 10 strangers
		keys = append(keys, store.MemberKey{GroupID: g.ID, UserID: fmt.Sprint(i)})
	}
	members, errs := l.Members.LoadMany(ctx, keys)()
	require.Empty(t, errs)
	for i, m := range members {
		if i < 150 {
			require.Equal(t, keys[i], m.Key())
		} else {
			require.Nil(t, m, "a missing member is nil, not an error")
		}
	}
	require.Equal(t, 2, calls.ByOperation()["BatchGetItem"], "160 keys: two batches of at most 100")

	// Cached for the rest of the request.
	calls.Reset()
	m, err := l.Members.Load(ctx, keys[0])()
	require.NoError(t, err)
	require.Equal(t, "1", m.UserID)
	require.Zero(t, calls.Total())
}

func TestExpensesByIDAndByKey(t *testing.T) {
	calls := &dynamotest.Counter{}
	s := dynamotest.Store(t, calls.Option())
	ctx := context.Background()
	usd := money.MustCurrency("USD")
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)
	var made []store.Expense
	for range 3 {
		e, err := s.CreateExpense(ctx, g.Title, store.Expense{GroupID: g.ID, PayerID: "1", PayerName: "A", Amount: money.NewAmount(100, usd),
			Description: "x", SplitType: store.SplitEqual, Splits: []store.Split{{UserID: "1", UserName: "A", Amount: money.NewAmount(100, usd)}}}, "")
		require.NoError(t, err)
		made = append(made, e)
	}

	l := loaders.New(s, 20*time.Millisecond)
	calls.Reset()
	refs := []store.ExpenseRef{made[0].Ref(), made[1].Ref(), {ID: made[2].ID}, {ID: "missing"}}
	got, errs := l.Expenses.LoadMany(ctx, refs)()
	require.Empty(t, errs)
	require.Equal(t, made[0].ID, got[0].ID)
	require.Equal(t, made[1].ID, got[1].ID)
	require.Equal(t, made[2].ID, got[2].ID)
	require.Nil(t, got[3])
	// Two by key in one BatchGetItem; two by id through GSI2, which has no batch read.
	require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 2}, calls.ByOperation())
}

func TestFailuresReachEveryWaitingKey(t *testing.T) {
	s := store.New(dynamotest.Client(t), "no-such-table", store.Options{})
	l := loaders.New(s, time.Millisecond)
	_, errs := l.Groups.LoadMany(context.Background(), []string{"a", "b"})()
	require.Len(t, errs, 2)
	require.Error(t, errs[0])
	require.Error(t, errs[1])
}
