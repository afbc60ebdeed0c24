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
	assert.Equal(t, "7.50", got.SettledParts()[0].String())
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

// A TON payment of several parts moves each part's book, a negative part
// the other way, all at once when it completes; the parts read back, the
// recomputation agrees, and the group's currency limit holds for the
// parts together.
func TestSettlementOfSeveralParts(t *testing.T) {
	f := newFixture(t)
	f.Store = store.New(dynamotestClient(t), f.Table(), store.Options{MaxGroupCurrencies: 4})
	g := f.group("1", "2")
	eur, ton := money.MustCurrency("EUR"), money.MustCurrency("TON")
	f.expense(g, "2", "30.00", "1", "2") // 1 owes 2 15.00 USD
	e := equalExpense(g, "1", "1", "1", "2")
	e.Amount = money.NewAmount(10000, eur) // 2 owes 1 50.00 EUR
	for i := range e.Splits {
		e.Splits[i].Amount = money.NewAmount(5000, eur)
	}
	_, err := f.CreateExpense(ctx, g.Title, e, "")
	require.NoError(t, err)

	part := func(minor int64, cur money.Currency, rate string) store.SettledConversion {
		return store.SettledConversion{Amount: money.NewAmount(minor, cur), RecordedRate: store.RecordedRate{Rate: dec(rate), Source: "CoinGecko", Date: "2024-06-29"}}
	}
	st := store.Settlement{
		GroupID: g.ID, FromUserID: "2", FromUserName: "User 2", ToUserID: "1", ToUserName: "User 1",
		Amount: money.NewAmount(5233203105, ton), Status: store.SettlementSent, CreatedBy: "2",
		Parts: []store.SettledConversion{part(5000, eur, "6.8764"), part(-1500, usd, "7.36")},
	}
	created, err := f.CreateSettlement(ctx, st, "")
	require.NoError(t, err)
	got, err := f.getSettlement(created.ID)
	require.NoError(t, err)
	require.Equal(t, created, got, "the parts read back")

	book := func(cur money.Currency) map[string]string {
		gb, err := f.GetBalances(ctx, []string{g.ID})
		require.NoError(t, err)
		out := map[string]string{}
		for u, n := range gb[0].Book(cur).Nets() {
			if !n.IsZero() {
				out[u] = n.String()
			}
		}
		return out
	}
	require.Equal(t, map[string]string{"1": "50.00", "2": "-50.00"}, book(eur), "sent: nothing moves")
	done := store.SettlementCompleted
	_, err = f.UpdateSettlement(ctx, got, store.SettlementChange{Status: &done}, "1")
	require.NoError(t, err)
	assert.Empty(t, book(eur), "the EUR part settled")
	assert.Empty(t, book(usd), "and the USD part, the other way")

	re, err := f.RecomputeBalances(ctx, g.ID)
	require.NoError(t, err)
	assert.Empty(t, re.Problems)
	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	for _, cur := range []money.Currency{eur, usd} {
		assert.True(t, re.Books[cur].Equal(gb[0].Book(cur)), "%s: %v", cur, re.Books[cur].Diff(gb[0].Book(cur)))
	}
	assert.NotContains(t, re.Books, ton)

	// The group holds USD and EUR of at most 4: parts in three more are refused, in one more fit.
	gbp, chf, jpy := money.MustCurrency("GBP"), money.MustCurrency("CHF"), money.MustCurrency("JPY")
	st.Status = store.SettlementCompleted
	st.CreatedBy = "1"
	st.Parts = []store.SettledConversion{part(100, gbp, "5.8"), part(100, chf, "6.6"), part(100, jpy, "1100")}
	_, err = f.CreateSettlement(ctx, st, "")
	require.ErrorIs(t, err, store.ErrTooManyCurrencies)
	st.Parts = []store.SettledConversion{part(100, gbp, "5.8"), part(100, eur, "6.8764")}
	_, err = f.CreateSettlement(ctx, st, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"1": "-1.00", "2": "1.00"}, book(gbp))
}
