package store_test

import (
	"testing"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestItemizedExpenseRoundTrip: an itemized expense written and read back
// from DynamoDB Local is what was written, every kind of line and
// adjustment included, and a new version keeps them.
func TestItemizedExpenseRoundTrip(t *testing.T) {
	f := newFixture(t)
	group := f.group("1", "2", "3")
	names := []string{"User 1", "User 2", "User 3"}
	ids := []string{"1", "2", "3"}
	pct, w2, w1 := money.NewDecimal(50, 0), money.NewDecimal(2, 0), money.NewDecimal(15, 1)
	tax, tip := money.NewDecimal(8875, 3), money.NewAmount(900, usd)
	e := store.Expense{
		GroupID: group.ID, Amount: money.NewAmount(6850, usd), Description: "Dinner", SplitType: store.SplitExact,
		Payers: []store.Payment{{UserID: ids[0], UserName: names[0], Amount: money.NewAmount(6850, usd)}},
		Splits: []store.Split{
			{UserID: ids[0], UserName: names[0], Amount: money.NewAmount(1349, usd)},
			{UserID: ids[1], UserName: names[1], Amount: money.NewAmount(3426, usd)},
			{UserID: ids[2], UserName: names[2], Amount: money.NewAmount(2075, usd)},
		},
		Items: []store.Item{
			{Description: "Pizza", Amount: money.NewAmount(2400, usd), SplitType: store.SplitEqual, Shares: []store.ItemShare{
				{Person: 0, Amount: money.NewAmount(1200, usd)}, {Person: 1, Amount: money.NewAmount(1200, usd)}}},
			{Description: "Wine", Amount: money.NewAmount(3000, usd), SplitType: store.SplitShares, Shares: []store.ItemShare{
				{Person: 1, Amount: money.NewAmount(1714, usd), Shares: &w2}, {Person: 2, Amount: money.NewAmount(1286, usd), Shares: &w1}}},
			{Description: "Salad", Amount: money.NewAmount(900, usd), SplitType: store.SplitPercentage, Shares: []store.ItemShare{
				{Person: 2, Amount: money.NewAmount(450, usd), Percentage: &pct}, {Person: 0, Amount: money.NewAmount(450, usd), Percentage: &pct}}},
			{Description: "Water", Amount: money.NewAmount(100, usd), SplitType: store.SplitExact, Shares: []store.ItemShare{
				{Person: 1, Amount: money.NewAmount(100, usd)}}},
		},
		Adjustments: []store.Adjustment{
			{Kind: store.AdjustmentTax, Percentage: &tax, AppliedAmount: money.NewAmount(568, usd)},
			{Kind: store.AdjustmentTip, Amount: &tip, AppliedAmount: tip},
			{Kind: store.AdjustmentDiscount, Amount: ptrTo(money.NewAmount(618, usd)), AppliedAmount: money.NewAmount(-618, usd)},
		},
	}
	created, err := f.CreateExpense(ctx, group.Title, e, "")
	require.NoError(t, err)
	got, err := f.getExpense(created.ID)
	require.NoError(t, err)
	assert.Equal(t, e.Items, got.Items)
	assert.Equal(t, e.Adjustments, got.Adjustments)

	next := got
	next.Description = "Dinner at Luigi's"
	_, err = f.UpdateExpense(ctx, got, next, group.Title, ids[1])
	require.NoError(t, err)
	again, err := f.getExpense(created.ID)
	require.NoError(t, err)
	assert.Equal(t, e.Items, again.Items)
	assert.Equal(t, e.Adjustments, again.Adjustments)
}

func ptrTo[T any](v T) *T { return &v }
