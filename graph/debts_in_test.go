package graph_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
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

// With no rate for TON, debts(in: "TON") still answers: each debt stays in
// its own currency, its one part's rate and converted null with
// RATE_UNAVAILABLE at their own paths, and the group and its balances are
// there.
func TestDebtsInWithoutARate(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	s.alice.Expense(s.group, "30.00", "111", "222")
	s.gecko.status.Store(http.StatusTooManyRequests)
	res := s.alice.Do(debtsInTON, "id", s.group, "in", "TON")
	require.NotEmpty(t, res.Errors)
	for _, e := range res.Errors {
		assert.Equal(t, "RATE_UNAVAILABLE", e.Extensions["code"], e.Message)
		require.Len(t, e.Path, 6, "the error is the part's: %v", e.Path)
		assert.Contains(t, []any{"rate", "converted"}, e.Path[5])
	}
	var d struct {
		Group *struct {
			Debts []struct {
				Amount, Currency string
				From, To         struct{ UserID string }
				Parts            []struct {
					Currency, Amount string
					Rate, Converted  *string
				}
			}
			Balances []struct{ Net string }
		}
	}
	require.NoError(t, json.Unmarshal(res.Data, &d))
	require.NotNil(t, d.Group, "the group is not nulled")
	require.Len(t, d.Group.Debts, 1)
	debt := d.Group.Debts[0]
	assert.Equal(t, []string{"15.00", "USD", "222", "111"}, []string{debt.Amount, debt.Currency, debt.From.UserID, debt.To.UserID},
		"the debt in its own currency")
	require.Len(t, debt.Parts, 1)
	assert.Equal(t, "15.00", debt.Parts[0].Amount)
	assert.Nil(t, debt.Parts[0].Rate)
	assert.Nil(t, debt.Parts[0].Converted)
	assert.Len(t, d.Group.Balances, 3, "the balances answer")

	s.bob.Fails("RATE_UNAVAILABLE", `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
		"in", map[string]any{"groupId": s.group, "toUserId": "111", "amount": "1", "currency": "TON", "settlesCurrency": "USD"})
	// In the group's own currency no rate is needed.
	var usd debtsResult
	s.bob.Must(&usd, debtsInTON, "id", s.group, "in", "USD")
	require.Len(t, usd.Group.Debts, 1)
	assert.Equal(t, []debtPart{{Currency: "USD", Amount: "15.00", Rate: "1", Converted: "15.00"}}, usd.Group.Debts[0].Parts)
}

const settleParts = `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) {
	id amount currency settlesCurrency parts { currency amount rate rateSource rateDate paid } } }`

type partsResult struct {
	CreateSettlement struct {
		ID, Amount, Currency string
		SettlesCurrency      *string
		Parts                []struct {
			Currency, Amount, Rate, Paid string
			RateSource, RateDate         *string
		}
	}
}

// Bob owes Alice 50 EUR and Alice owes Bob 15 USD: in TON that is one debt,
// Bob to Alice, netting the two; one settlement of its parts, completed,
// leaves both balances in both currencies at exactly zero, and the kept
// balances agree with a recomputation (verify).
func TestOneSettlementAcrossCurrencies(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	s.alice.Must(&struct{}{}, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", map[string]any{
		"groupId": s.group, "amount": "100.00", "currency": "EUR", "description": "Hotel",
		"splitType": "EQUAL", "splits": []map[string]any{{"userId": "111"}, {"userId": "222"}}})
	s.bob.Expense(s.group, "30.00", "111", "222")

	var inTON debtsResult
	s.carol.Must(&inTON, debtsInTON, "id", s.group, "in", "TON")
	require.Len(t, inTON.Group.Debts, 1, "one debt for the pair, netted")
	debt := inTON.Group.Debts[0]
	assert.Equal(t, []string{"222", "111", "TON"}, []string{debt.From.UserID, debt.To.UserID, debt.Currency})
	parts := map[string]debtPart{}
	for _, p := range debt.Parts {
		parts[p.Currency] = p
	}
	assert.Equal(t, debtPart{Currency: "EUR", Amount: "50.00", Rate: "6.8764", Converted: "7.271246583",
		RateSource: ptr("CoinGecko"), RateDate: ptr("2024-06-29")}, parts["EUR"])
	assert.Equal(t, debtPart{Currency: "USD", Amount: "-15.00", Rate: "7.36", Converted: "-2.038043478",
		RateSource: ptr("CoinGecko"), RateDate: ptr("2024-06-29")}, parts["USD"], "Alice's USD debt to Bob, the other way")
	assert.Equal(t, "5.233203105", debt.Amount, "7.271246583 - 2.038043478")

	in := func(amount string, extra map[string]any) map[string]any {
		var ps []map[string]any
		for _, p := range debt.Parts {
			ps = append(ps, map[string]any{"currency": p.Currency, "amount": p.Amount, "rate": p.Rate})
		}
		out := map[string]any{"groupId": s.group, "toUserId": "111", "amount": amount, "currency": "TON", "parts": ps, "status": "SENT"}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		in    map[string]any
		field string
	}{
		{"not what the parts come to", in("5.233203106", nil), "input.amount"},
		{"with settlesCurrency", in(debt.Amount, map[string]any{"settlesCurrency": "EUR"}), "input.parts"},
		{"a currency twice", in(debt.Amount, map[string]any{"parts": []map[string]any{
			{"currency": "EUR", "amount": "1.00", "rate": "6.8764"}, {"currency": "EUR", "amount": "1.00", "rate": "6.8764"}}}), "input.parts[1].currency"},
		{"a zero part", in(debt.Amount, map[string]any{"parts": []map[string]any{{"currency": "EUR", "amount": "0.00", "rate": "6.8764"}}}), "input.parts[0].amount"},
		{"too many decimals", in(debt.Amount, map[string]any{"parts": []map[string]any{{"currency": "EUR", "amount": "1.001", "rate": "6.8764"}}}), "input.parts[0].amount"},
		{"a bad rate", in(debt.Amount, map[string]any{"parts": []map[string]any{{"currency": "EUR", "amount": "1.00", "rate": "0"}}}), "input.parts[0].rate"},
		{"the own currency not at 1", in(debt.Amount, map[string]any{"parts": []map[string]any{{"currency": "TON", "amount": "1", "rate": "2"}}}), "input.parts[0].rate"},
		{"the other way", in("2.038043478", map[string]any{"parts": []map[string]any{{"currency": "USD", "amount": "-15.00", "rate": "7.36"}}}), "input.parts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.bob.Fails("BAD_USER_INPUT", settleParts, "in", tc.in)
			assert.Equal(t, tc.field, res.Field(), res.Errors[0].Message)
		})
	}

	var st partsResult
	s.bob.Must(&st, settleParts, "in", in(debt.Amount, nil))
	assert.Equal(t, "5.233203105", st.CreateSettlement.Amount)
	assert.Nil(t, st.CreateSettlement.SettlesCurrency)
	require.Len(t, st.CreateSettlement.Parts, 2)
	paid := map[string]string{}
	for _, p := range st.CreateSettlement.Parts {
		paid[p.Currency] = p.Paid
		assert.Equal(t, "manual", *p.RateSource)
	}
	assert.Equal(t, map[string]string{"EUR": "7.271246583", "USD": "-2.038043478"}, paid)

	var before debtsResult
	s.alice.Must(&before, debtsInTON, "id", s.group)
	assert.Equal(t, "50.00", before.net("111", "EUR"), "nothing moves before it completes")
	s.alice.Must(&struct{}{}, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.CreateSettlement.ID)
	var after debtsResult
	s.alice.Must(&after, debtsInTON, "id", s.group, "in", "TON")
	for _, who := range []string{"111", "222"} {
		for _, cur := range []string{"EUR", "USD"} {
			assert.Equal(t, "0.00", after.net(who, cur), "%s in %s", who, cur)
		}
	}
	assert.Empty(t, after.Group.Debts, "nothing left to pay")
	checkKept(t, s.api, s.group)

	var read struct {
		Settlement struct {
			Parts []struct{ Currency, Amount string }
		}
	}
	s.bob.Must(&read, `query($id: ID!) { settlement(id: $id) { parts { currency amount } } }`, "id", st.CreateSettlement.ID)
	assert.Len(t, read.Settlement.Parts, 2, "the parts read back")

	// Exported and imported again: the parts come back, and the imported
	// group's balances are the export's (zero in both currencies).
	res := s.alice.Get("/export/groups/" + s.group + ".json")
	require.Equal(t, http.StatusOK, res.Code)
	assert.Contains(t, res.Body.String(), `"parts":[{"amount":"50.00","currency":"EUR","rate":"6.8764"`)
	var imported struct {
		ImportGroup struct {
			Group    struct{ ID string }
			Problems []struct{ Message string }
		}
	}
	s.alice.Must(&imported, `mutation($file: Upload!) { importGroup(input: {format: FRACTI_JSON, file: $file, dryRun: false}) {
		group { id } problems { message } } }`, "file", apitest.File{Name: "trip.json", Data: res.Body.Bytes()})
	assert.Empty(t, imported.ImportGroup.Problems)
	var again debtsResult
	s.alice.Must(&again, debtsInTON, "id", imported.ImportGroup.Group.ID)
	assert.Empty(t, again.Group.Debts, "the imported settlement settles both currencies")
	checkKept(t, s.api, imported.ImportGroup.Group.ID)
}

// Parts at the day's rate, and one part in the settlement's own currency.
func TestSettlementPartsAtTheDaysRate(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	s.alice.Must(&struct{}{}, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", map[string]any{
		"groupId": s.group, "amount": "20.00", "currency": "EUR", "description": "Museum",
		"splitType": "EQUAL", "splits": []map[string]any{{"userId": "111"}, {"userId": "333"}}})
	s.alice.Expense(s.group, "8.00", "111", "333")
	// Carol owes Alice 10.00 EUR and 4.00 USD; she pays in USD.
	var st partsResult
	s.carol.Must(&st, settleParts, "in", map[string]any{"groupId": s.group, "toUserId": "111", "currency": "USD",
		"amount": "14.71", "parts": []map[string]any{{"currency": "EUR", "amount": "10.00"}, {"currency": "USD", "amount": "4.00"}},
		"status": "SENT"})
	byCur := map[string]string{}
	for _, p := range st.CreateSettlement.Parts {
		byCur[p.Currency] = p.Rate + " " + p.Paid
	}
	assert.Equal(t, "1", strings.Fields(byCur["USD"])[0])
	assert.Equal(t, "4.00", strings.Fields(byCur["USD"])[1])
	assert.Equal(t, "10.71", strings.Fields(byCur["EUR"])[1], "10 EUR at 1 / 1.0705 EUR per USD: %s", byCur["EUR"])
	s.alice.Must(&struct{}{}, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.CreateSettlement.ID)
	var after debtsResult
	s.alice.Must(&after, debtsInTON, "id", s.group)
	assert.Equal(t, "0.00", after.net("333", "EUR"))
	assert.Equal(t, "0.00", after.net("333", "USD"))
	checkKept(t, s.api, s.group)
}
