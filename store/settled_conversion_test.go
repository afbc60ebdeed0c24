package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// A settlement paid in TON that settles a USD balance moves the USD
// balance by its settled amount, both when it is recorded completed and
// when it completes later, and the recomputation from the items agrees.
func TestSettlementInAnotherCurrency(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	f.expense(g, "1", "30.00", "1", "2") // 2 owes 1 15.00 USD
	ton := money.MustCurrency("TON")
	paid := func(status store.SettlementStatus, settles string) store.Settlement {
		return store.Settlement{
			GroupID: g.ID, FromUserID: "2", FromUserName: "User 2", ToUserID: "1", ToUserName: "User 1",
			Amount: money.NewAmount(1019021739, ton), Status: status, CreatedBy: "2",
			Settles: &store.SettledConversion{Amount: amount(settles),
				RecordedRate: store.RecordedRate{Rate: dec("7.36"), Source: "CoinGecko", Date: "2026-11-25"}},
		}
	}
	st, err := f.CreateSettlement(ctx, paid(store.SettlementSent, "7.50"), "")
	require.NoError(t, err)
	got, err := f.getSettlement(st.ID)
	require.NoError(t, err)
	require.Equal(t, st, got)
	assert.Equal(t, "7.50", got.Settled().String())
	assert.Equal(t, map[string]string{"1": "15.00", "2": "-15.00"}, f.nets(g.ID), "a sent settlement moves nothing")

	completed := store.SettlementCompleted
	_, err = f.UpdateSettlement(ctx, st, store.SettlementChange{Status: &completed}, "1")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"1": "7.50", "2": "-7.50"}, f.nets(g.ID))

	// Recorded completed by its recipient: the rest.
	second := paid(store.SettlementCompleted, "7.50")
	second.CreatedBy = "1"
	_, err = f.CreateSettlement(ctx, second, "")
	require.NoError(t, err)
	assert.Empty(t, f.nets(g.ID), "every USD balance is exactly zero")

	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	for _, b := range gb[0].Books {
		assert.NotEqual(t, ton, b.Currency, "no TON book")
	}
	re, err := f.RecomputeBalances(ctx, g.ID)
	require.NoError(t, err)
	assert.Empty(t, re.Problems)
	require.Contains(t, re.Books, usd)
	assert.NotContains(t, re.Books, ton)
	assert.True(t, re.Books[usd].Equal(gb[0].Book(usd)), "the recomputation agrees: %v", re.Books[usd].Diff(gb[0].Book(usd)))
}
