package loaders_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestMembersBatchAcrossTheBatchGetLimit(t *testing.T) {
	calls := &dynamotest.Counter{}
	s := dynamotest.Store(t, calls.Option())
	ctx := context.Background()
	g := newGroup(t, s, "T")
	for i := 2; i <= 150; i++ {
		_, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: fmt.Sprint(i), Name: fmt.Sprint("U", i)})
		require.NoError(t, err)
	}

	ctx = loaders.With(ctx, loaders.New(s, 20*time.Millisecond))
	calls.Reset()
	userIDs := make([]string, 0, 160)
	for i := 1; i <= 160; i++ { // 150 members and 10 strangers
		userIDs = append(userIDs, fmt.Sprint(i))
	}
	members, err := loaders.Members(ctx, g.ID, userIDs)
	require.NoError(t, err)
	for i, m := range members {
		if i < 150 {
			require.Equal(t, store.MemberKey{GroupID: g.ID, UserID: userIDs[i]}, m.Key())
		} else {
			require.Nil(t, m, "a missing member is nil, not an error")
		}
	}
	require.Equal(t, 2, calls.ByOperation()["BatchGetItem"], "160 keys: two batches of at most 100")

	// Cached for the rest of the request.
	calls.Reset()
	m, err := loaders.Member(ctx, g.ID, userIDs[0])
	require.NoError(t, err)
	require.Equal(t, "1", m.UserID)
	require.Zero(t, calls.Total())
}

func TestExpensesByIDAndByKey(t *testing.T) {
	calls := &dynamotest.Counter{}
	s := dynamotest.Store(t, calls.Option())
	g := newGroup(t, s, "T")
	var made []store.Expense
	for range 3 {
		made = append(made, newExpense(t, s, g))
	}

	ctx := loaders.With(context.Background(), loaders.New(s, 20*time.Millisecond))
	calls.Reset()
	refs := []store.ExpenseRef{made[0].Ref(), made[1].Ref(), {ID: made[2].ID}, {ID: "missing"}}
	got := loadAll(t, refs, func(ref store.ExpenseRef) (*store.Expense, error) { return loaders.Expense(ctx, ref) })
	require.Equal(t, made[0].ID, got[0].ID)
	require.Equal(t, made[1].ID, got[1].ID)
	require.Equal(t, made[2].ID, got[2].ID)
	require.Nil(t, got[3])
	// Two by key in one BatchGetItem; two by id through GSI2, which has no batch read.
	require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 2}, calls.ByOperation())
}

func TestFailuresReachEveryWaitingKey(t *testing.T) {
	s := store.New(dynamotest.Client(t), "no-such-table", store.Options{})
	ctx := loaders.With(context.Background(), loaders.New(s, time.Millisecond))
	_, err := loaders.Groups(ctx, []string{"a", "b"})
	require.Error(t, err)
	errs := make(chan error, 2)
	for _, id := range []string{"c", "d"} {
		go func() { _, err := loaders.Group(ctx, id); errs <- err }()
	}
	require.Error(t, <-errs)
	require.Error(t, <-errs)
}

// loadAll loads every key at once, as sibling GraphQL fields do, and
// returns the values in the keys' order.
func loadAll[K, V any](t *testing.T, keys []K, load func(K) (*V, error)) []*V {
	t.Helper()
	out := make([]*V, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Go(func() { out[i], errs[i] = load(k) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return out
}

// newGroup creates a USD group whose first member is user 1, "A".
func newGroup(t *testing.T, s *store.Store, title string) store.Group {
	t.Helper()
	g, _, err := s.CreateGroup(context.Background(), store.NewGroup{Title: title, Currency: money.MustCurrency("USD"),
		Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)
	return g
}

// newExpense records 1.00 that user 1 paid for themselves in the group.
func newExpense(t *testing.T, s *store.Store, g store.Group) store.Expense {
	t.Helper()
	one := money.NewAmount(100, g.Currency)
	e, err := s.CreateExpense(context.Background(), g.Title, store.Expense{GroupID: g.ID, PayerID: "1", PayerName: "A", Amount: one,
		Description: "x", SplitType: store.SplitEqual, Splits: []store.Split{{UserID: "1", UserName: "A", Amount: one}}}, "")
	require.NoError(t, err)
	return e
}

// Every batch read a loader makes is reported with its loader's name and
// size, as the metrics' histogram shows when scraped.
func TestBatchSizesAreObserved(t *testing.T) {
	m := metrics.New()
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	s := dynamotest.Store(t)
	ctx := context.Background()
	g := newGroup(t, s, "T")
	for i := 2; i <= 120; i++ {
		_, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: fmt.Sprint(i), Name: fmt.Sprint("U", i)})
		require.NoError(t, err)
	}
	var made []store.Expense
	for range 3 {
		made = append(made, newExpense(t, s, g))
	}

	ctx = loaders.With(ctx, loaders.New(s, 20*time.Millisecond, loaders.ObserveBatches(m.ObserveLoaderBatch)))
	userIDs := make([]string, 0, 130)
	for i := 1; i <= 130; i++ {
		userIDs = append(userIDs, fmt.Sprint(i))
	}
	_, err := loaders.Members(ctx, g.ID, userIDs)
	require.NoError(t, err)
	refs := []store.ExpenseRef{made[0].Ref(), made[1].Ref(), made[2].Ref()}
	loadAll(t, refs, func(ref store.ExpenseRef) (*store.Expense, error) { return loaders.Expense(ctx, ref) })

	scraped := scrape.Get(t, srv.URL)
	items, expenses := scrape.Labels{"loader": "items"}, scrape.Labels{"loader": "expenses"}
	// 130 keys: a full batch of 100 and one of 30.
	require.Equal(t, uint64(2), scraped.Count("fracti_loader_batch_keys", items))
	require.Equal(t, 130.0, scraped.HistogramSum("fracti_loader_batch_keys", items))
	require.Equal(t, uint64(0), scraped.AtMost("fracti_loader_batch_keys", items, 20))
	require.Equal(t, uint64(1), scraped.AtMost("fracti_loader_batch_keys", items, 50))
	// Three expenses asked for at once: one batch of 3.
	require.Equal(t, uint64(1), scraped.Count("fracti_loader_batch_keys", expenses))
	require.Equal(t, uint64(1), scraped.AtMost("fracti_loader_batch_keys", expenses, 3))
	require.Equal(t, uint64(0), scraped.AtMost("fracti_loader_batch_keys", expenses, 2))
}

// A field's read started ahead and another field's lookup of the same
// group run at once (group(id:) and node(id:) in one query): the race
// detector finds no unsynchronized access to what was started.
func TestPrefetchAndLookupAtOnce(t *testing.T) {
	s := dynamotest.Store(t)
	g := newGroup(t, s, "T")
	for range 20 {
		ctx := loaders.With(context.Background(), loaders.New(s, time.Millisecond))
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			loaders.PrefetchGroup(ctx, g.ID, true, true)
		}()
		var got *store.Group
		var member *store.Member
		var groupErr, memberErr error
		go func() {
			defer wg.Done()
			got, groupErr = loaders.Group(ctx, g.ID)
			member, memberErr = loaders.Member(ctx, g.ID, "1")
		}()
		wg.Wait()
		require.NoError(t, groupErr)
		require.NoError(t, memberErr)
		require.Equal(t, g.ID, got.ID)
		require.Equal(t, "1", member.UserID)
	}
}
