package store_test

import (
	"testing"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The fields gqlgen binds in line answer null exactly where the resolvers
// they replace did: an empty string, or no conversion, is null.
func TestBoundFieldsAreNullWhereEmpty(t *testing.T) {
	m := &store.Member{GroupID: "g", UserID: "7"}
	require.Equal(t, "g:7", m.NodeID())
	require.Nil(t, m.UsernameOrNil())
	require.Nil(t, m.WalletOrNil())
	require.Nil(t, m.AvatarURLOrNil())
	m.Username, m.Wallet, m.AvatarURL = "ann", "EQw", "https://t.me/a.jpg"
	require.Equal(t, "ann", *m.UsernameOrNil())
	require.Equal(t, "EQw", *m.WalletOrNil())
	require.Equal(t, "https://t.me/a.jpg", *m.AvatarURLOrNil())

	usd, eur := money.MustCurrency("USD"), money.MustCurrency("EUR")
	rate := money.NewDecimal(108, 2)
	e := &store.Expense{}
	for _, v := range []any{e.CategoryOrNil(), e.OriginalAmount(), e.OriginalCurrency(), e.Rate(), e.RateSource(), e.RateDate()} {
		require.Nil(t, v)
	}
	e.Category = "food"
	e.Conversion = &store.Conversion{Original: money.NewAmount(1250, eur), RecordedRate: store.RecordedRate{Rate: rate, Source: "manual", Date: "2026-03-01"}}
	require.Equal(t, "food", *e.CategoryOrNil())
	require.Equal(t, "12.50", e.OriginalAmount().String())
	require.Equal(t, "EUR", *e.OriginalCurrency())
	require.Equal(t, rate, *e.Rate())
	require.Equal(t, "manual", *e.RateSource())
	require.Equal(t, "2026-03-01", *e.RateDate())

	st := &store.Settlement{}
	for _, v := range []any{st.TxHashOrNil(), st.SettlesCurrency(), st.SettledAmount(), st.Rate(), st.RateSource(), st.RateDate()} {
		require.Nil(t, v)
	}
	st.TxHash = "abc"
	st.Settles = &store.SettledConversion{Amount: money.NewAmount(500, usd), RecordedRate: store.RecordedRate{Rate: rate, Source: "ecb", Date: "2026-03-02"}}
	require.Equal(t, "abc", *st.TxHashOrNil())
	require.Equal(t, "USD", *st.SettlesCurrency())
	require.Equal(t, "5.00", st.SettledAmount().String())
	require.Equal(t, rate, *st.Rate())
	require.Equal(t, "ecb", *st.RateSource())
	require.Equal(t, "2026-03-02", *st.RateDate())
}
