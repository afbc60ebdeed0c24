package store_test

import (
	"context"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCallBudget(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	g := f.group("1", "2")
	calls.Reset()

	for _, tc := range []struct {
		name   string
		budget int
		want   int // calls that reach DynamoDB out of three
	}{
		{"no budget", 0, 3},
		{"room for all", 3, 3},
		{"room for two", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Reset()
			c := store.WithCallBudget(context.Background(), tc.budget)
			var refused int
			for range 3 {
				_, err := f.GetGroups(c, []string{g.ID})
				if err != nil {
					require.ErrorIs(t, err, store.ErrCallBudget)
					refused++
				}
			}
			require.Equal(t, tc.want, calls.Total(), "refused calls never reach DynamoDB")
			require.Equal(t, 3-tc.want, refused)
			if tc.budget > 0 {
				require.Equal(t, tc.want, store.CallsMade(c))
			}
		})
	}
}

func TestGroupCurrencyLimit(t *testing.T) {
	f := newFixture(t)
	f.Store = store.New(dynamotestClient(t), f.Table(), store.Options{MaxGroupCurrencies: 2})
	g := f.group("1", "2")
	expense := func(code string) error {
		e := equalExpense(g, "1", "1", "1", "2")
		cur := money.MustCurrency(code)
		e.Amount = money.NewAmount(200, cur)
		for i := range e.Splits {
			e.Splits[i].Amount = money.NewAmount(100, cur)
		}
		_, err := f.CreateExpense(ctx, g.Title, e, "")
		return err
	}
	require.NoError(t, expense("USD"))
	require.NoError(t, expense("EUR"))
	require.ErrorIs(t, expense("GBP"), store.ErrTooManyCurrencies)
	require.NoError(t, expense("USD"), "a currency the group holds is always fine")

	// A settlement can neither be created completed nor complete in a third currency.
	gbp := money.MustCurrency("GBP")
	_, err := f.CreateSettlement(ctx, store.Settlement{GroupID: g.ID, FromUserID: "2", ToUserID: "1",
		Amount: money.NewAmount(100, gbp), Status: store.SettlementCompleted}, "")
	require.ErrorIs(t, err, store.ErrTooManyCurrencies)
	st, err := f.CreateSettlement(ctx, store.Settlement{GroupID: g.ID, FromUserID: "2", ToUserID: "1",
		Amount: money.NewAmount(100, gbp), Status: store.SettlementPending}, "")
	require.NoError(t, err)
	done := store.SettlementCompleted
	_, err = f.UpdateSettlement(ctx, st, store.SettlementChange{Status: &done}, "1")
	require.ErrorIs(t, err, store.ErrTooManyCurrencies)

	// A missing member is still told apart from a full group.
	e := equalExpense(g, "1", "2.00", "1", "9")
	_, err = f.CreateExpense(ctx, g.Title, e, "")
	require.ErrorIs(t, err, store.ErrNotFound)
}
