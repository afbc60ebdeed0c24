package graph_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const debtsInTON = `query($id: ID!, $in: String) { group(id: $id) {
	debts(in: $in) { id amount currency from { userId } to { userId }
		parts { currency amount rate rateSource rateDate converted } }
	balances { member { userId } currency net }
} }`

type debtPart struct {
	Currency, Amount, Rate, Converted string
	RateSource, RateDate              *string
}

type debtsResult struct {
	Group struct {
		Debts []struct {
			ID, Amount, Currency string
			From, To             struct{ UserID string }
			Parts                []debtPart
		}
		Balances []struct {
			Member        struct{ UserID string }
			Currency, Net string
		}
	}
}

func (d debtsResult) net(user, currency string) string {
	for _, b := range d.Group.Balances {
		if b.Member.UserID == user && b.Currency == currency {
			return b.Net
		}
	}
	return ""
}

// What do I owe, in TON? And a TON payment of it leaves the EUR balance at
// exactly zero.
func TestDebtsInTONAndSettlingAcrossCurrencies(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	everyone := []map[string]any{{"userId": "111"}, {"userId": "222"}, {"userId": "333"}}
	var out struct{ CreateExpense convertedResult }
	s.alice.Must(&out, convertedExpense, "in", map[string]any{"groupId": s.group, "amount": "100.00", "currency": "EUR",
		"description": "Dinner", "splitType": "EQUAL", "splits": everyone})
	s.bob.Must(&out, convertedExpense, "in", map[string]any{"groupId": s.group, "amount": "30.00", "currency": "USD",
		"description": "Taxi", "splitType": "EQUAL", "splits": []map[string]any{{"userId": "111"}, {"userId": "333"}}})

	var plain, inTON debtsResult
	s.alice.Must(&plain, debtsInTON, "id", s.group)
	s.alice.Must(&inTON, debtsInTON, "id", s.group, "in", "TON")
	assert.Equal(t, plain.Group.Balances, inTON.Group.Balances, "the converted view changes no balance")
	for _, d := range plain.Group.Debts {
		assert.Nil(t, d.Parts, "without in: no parts")
	}

	// Carol owes Alice 33.33 EUR and Bob 15.00 USD; in TON, one debt per pair.
	byPair := map[string]int{}
	for i, d := range inTON.Group.Debts {
		assert.Equal(t, "TON", d.Currency)
		assert.Contains(t, d.ID, ":in")
		byPair[d.From.UserID+">"+d.To.UserID] = i
	}
	carolAlice := inTON.Group.Debts[byPair["333>111"]]
	require.Len(t, carolAlice.Parts, 1)
	part := carolAlice.Parts[0]
	assert.Equal(t, debtPart{Currency: "EUR", Amount: "33.33", Rate: "6.8764", Converted: "4.847012972",
		RateSource: ptr("CoinGecko"), RateDate: ptr("2024-06-29")}, part)
	assert.Equal(t, part.Converted, carolAlice.Amount)
	carolBob := inTON.Group.Debts[byPair["333>222"]]
	require.Len(t, carolBob.Parts, 1)
	assert.Equal(t, "USD", carolBob.Parts[0].Currency)
	assert.Equal(t, "7.36", carolBob.Parts[0].Rate)
	assert.Equal(t, "2.038043478", carolBob.Parts[0].Converted, "15.00 / 7.36")

	// Carol pays Alice in TON what the view says, at its rate, settling EUR.
	var st struct {
		CreateSettlement struct {
			ID, Amount, Currency                             string
			SettlesCurrency, SettledAmount, Rate, RateSource *string
		}
	}
	s.carol.Must(&st, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) {
		id amount currency settlesCurrency settledAmount rate rateSource } }`, "in", map[string]any{
		"groupId": s.group, "toUserId": "111", "amount": part.Converted, "currency": "TON",
		"settlesCurrency": "EUR", "rate": part.Rate, "status": "SENT"})
	assert.Equal(t, "4.847012972", st.CreateSettlement.Amount)
	assert.Equal(t, "TON", st.CreateSettlement.Currency)
	assert.Equal(t, "EUR", *st.CreateSettlement.SettlesCurrency)
	assert.Equal(t, "33.33", *st.CreateSettlement.SettledAmount)
	assert.Equal(t, "manual", *st.CreateSettlement.RateSource)
	s.alice.Must(&struct{}{}, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.CreateSettlement.ID)

	var after debtsResult
	s.alice.Must(&after, debtsInTON, "id", s.group)
	assert.Equal(t, "0.00", after.net("333", "EUR"), "Carol's EUR balance is exactly zero")
	assert.Equal(t, "-15.00", after.net("333", "USD"), "her USD debt is untouched")
	assert.Equal(t, "", after.net("333", "TON"), "no TON balance appeared")
	for _, b := range after.Group.Balances {
		assert.NotEqual(t, "TON", b.Currency)
	}

	// At the day's rate: recorded from CoinGecko, settling by the converted amount.
	s.carol.Must(&st, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) {
		id amount currency settlesCurrency settledAmount rate rateSource } }`, "in", map[string]any{
		"groupId": s.group, "toUserId": "222", "amount": "2.038043478", "currency": "TON", "settlesCurrency": "USD"})
	assert.Equal(t, "7.36", *st.CreateSettlement.Rate)
	assert.Equal(t, "CoinGecko", *st.CreateSettlement.RateSource)
	assert.Equal(t, "15.00", *st.CreateSettlement.SettledAmount)
	s.bob.Must(&struct{}{}, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.CreateSettlement.ID)
	s.alice.Must(&after, debtsInTON, "id", s.group)
	assert.Equal(t, "0.00", after.net("333", "USD"))

	// Validation.
	for _, tc := range []struct {
		extra map[string]any
		field string
	}{
		{map[string]any{"rate": "6.8"}, "input.rate"},
		{map[string]any{"settlesCurrency": "EUR", "rate": "1.0000000000001"}, "input.rate"},
		{map[string]any{"settlesCurrency": "XYZ"}, "input.settlesCurrency"},
		{map[string]any{"settlesCurrency": "TON", "rate": "1"}, "input.rate"},
	} {
		in := map[string]any{"groupId": s.group, "toUserId": "111", "amount": "1", "currency": "TON"}
		for k, v := range tc.extra {
			in[k] = v
		}
		res := s.carol.Fails("BAD_USER_INPUT", `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`, "in", in)
		assert.Equal(t, tc.field, res.Field())
	}
	s.alice.Fails("BAD_USER_INPUT", debtsInTON, "id", s.group, "in", "XYZ")
}

func TestDebtsInWithoutARate(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	s.alice.Expense(s.group, "30.00", "111", "222")
	s.gecko.status.Store(http.StatusTooManyRequests)
	s.alice.Fails("RATE_UNAVAILABLE", debtsInTON, "id", s.group, "in", "TON")
	s.bob.Fails("RATE_UNAVAILABLE", `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
		"in", map[string]any{"groupId": s.group, "toUserId": "111", "amount": "1", "currency": "TON", "settlesCurrency": "USD"})
	// In the group's own currency no rate is needed.
	var d debtsResult
	s.bob.Must(&d, debtsInTON, "id", s.group, "in", "USD")
	require.Len(t, d.Group.Debts, 1)
	assert.Equal(t, []debtPart{{Currency: "USD", Amount: "15.00", Rate: "1", Converted: "15.00"}}, d.Group.Debts[0].Parts)
}
