package graph_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/rates"
	"github.com/fracti/api/rates/coingecko"
	"github.com/fracti/api/rates/ecb"
)

// provider is a local stand-in for a rate provider: it serves a recorded
// answer, or status while down, and counts the requests it got.
type provider struct {
	srv    *httptest.Server
	body   atomic.Value // string
	status atomic.Int32 // 0: 200 with body
	hits   atomic.Int32
}

func newProvider(t *testing.T, body string) *provider {
	p := &provider{}
	p.body.Store(body)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.hits.Add(1)
		if s := p.status.Load(); s != 0 {
			w.WriteHeader(int(s))
			_, _ = w.Write([]byte(`{"status":{"error_code":429,"error_message":"You've exceeded the Rate Limit."}}`))
			return
		}
		_, _ = w.Write([]byte(p.body.Load().(string)))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// recordedECB is the ECB's file of 2024-06-28 (rates/ecb/testdata).
func recordedECB(t *testing.T) string {
	b, err := os.ReadFile("../rates/ecb/testdata/eurofxref-daily-2024-06-28.xml")
	require.NoError(t, err)
	return string(b)
}

// tonPrice is TON's price as CoinGecko answers it, read as text.
const tonPrice = `{"the-open-network":{"eur":6.8764,"usd":7.36}}`

type rateSetup struct {
	api         *apitest.API
	ecb, gecko  *provider
	clock       *testclock.Clock
	group       string
	alice, bob  *apitest.User
	carol       *apitest.User
	withoutRate func(in map[string]any) map[string]any
}

// withRates is a group of three over a table of its own, with both local
// providers configured; the day is 2024-06-29, after the ECB's file.
func withRates(t *testing.T, ecbBody, geckoBody string) *rateSetup {
	s := &rateSetup{ecb: newProvider(t, ecbBody), gecko: newProvider(t, geckoBody),
		clock: testclock.At(time.Date(2024, 6, 29, 10, 0, 0, 0, time.UTC))}
	client := &http.Client{Timeout: 2 * time.Second}
	var fiat, crypto rates.Provider = &ecb.Client{URL: s.ecb.srv.URL + "/eurofxref-daily.xml", HTTP: client},
		&coingecko.Client{URL: s.gecko.srv.URL + "/api/v3/simple/price", HTTP: client, Today: func() string {
			return s.clock.Now().UTC().Format(time.DateOnly)
		}}
	s.api = apitest.New(t, apitest.Rates(fiat, crypto, s.clock.Now), apitest.WithClock(s.clock))
	s.alice, s.bob, s.carol = s.api.User("111", "Alice"), s.api.User("222", "Bob"), s.api.User("333", "Carol")
	s.group = s.alice.CreateGroup("Trip")
	s.bob.Join(s.group)
	s.carol.Join(s.group)
	return s
}

const convertedExpense = `mutation($in: CreateExpenseInput!) { createExpense(input: $in) {
	id version amount currency originalAmount originalCurrency rate rateSource rateDate
	payers { userId amount } splits { userId amount }
} }`

type convertedResult struct {
	ID                                                           string
	Version                                                      int
	Amount, Currency                                             string
	OriginalAmount, OriginalCurrency, Rate, RateSource, RateDate *string
	Payers                                                       []struct{ UserID, Amount string }
	Splits                                                       []struct{ UserID, Amount string }
}

func amounts[T interface {
	~struct{ UserID, Amount string }
}](xs []T) map[string]string {
	out := map[string]string{}
	for _, x := range xs {
		s := struct{ UserID, Amount string }(x)
		out[s.UserID] = s.Amount
	}
	return out
}

func dinner(group string, extra map[string]any) map[string]any {
	in := map[string]any{"groupId": group, "amount": "54.00", "currency": "USD", "description": "Dinner",
		"splitType": "EQUAL", "splits": []map[string]any{{"userId": "111"}, {"userId": "222"}, {"userId": "333"}}}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

func TestConvertAtAGivenRate(t *testing.T) {
	// No provider configured: make run's case.
	_, alice, group := tripWithoutProviders(t, time.Date(2024, 6, 29, 10, 0, 0, 0, time.UTC))
	var out struct{ CreateExpense convertedResult }
	alice.Must(&out, convertedExpense, "in", dinner(group, map[string]any{"convertTo": "EUR", "rate": "0.9", "spentAt": "2024-06-28T19:00:00.000Z"}))
	e := out.CreateExpense
	assert.Equal(t, "48.60", e.Amount)
	assert.Equal(t, "EUR", e.Currency)
	assert.Equal(t, "54.00", *e.OriginalAmount)
	assert.Equal(t, "USD", *e.OriginalCurrency)
	assert.Equal(t, "0.9", *e.Rate)
	assert.Equal(t, "manual", *e.RateSource)
	assert.Equal(t, "2024-06-29", *e.RateDate, "a manual rate is dated the day it was given")
	assert.Equal(t, map[string]string{"111": "16.20", "222": "16.20", "333": "16.20"}, amounts(e.Splits))

	// The recorded currency is what enters balances: nothing in USD.
	var g struct {
		Group struct {
			Balances []struct {
				Member        struct{ UserID string }
				Currency, Net string
			}
		}
	}
	alice.Must(&g, `query($id: ID!) { group(id: $id) { balances { member { userId } currency net } } }`, "id", group)
	for _, b := range g.Group.Balances {
		assert.Equal(t, "EUR", b.Currency)
	}
	// And the spending summaries: 48.60 EUR, nothing in USD.
	var sp struct {
		Group struct {
			Spending []struct{ Currency, Total string }
		}
	}
	alice.Must(&sp, `query($id: ID!) { group(id: $id) { spending(from: "2024-06-28", to: "2024-06-28") { currency total } } }`, "id", group)
	require.Len(t, sp.Group.Spending, 1)
	assert.Equal(t, "EUR", sp.Group.Spending[0].Currency)
	assert.Equal(t, "48.60", sp.Group.Spending[0].Total)

	// Without a provider and without a rate: RATE_UNAVAILABLE, nothing written.
	res := alice.Fails("RATE_UNAVAILABLE", convertedExpense, "in", dinner(group, map[string]any{"convertTo": "EUR"}))
	assert.Contains(t, res.Errors[0].Message, "pass `rate`")

	// A plain expense has no conversion.
	alice.Must(&out, convertedExpense, "in", dinner(group, nil))
	assert.Nil(t, out.CreateExpense.Rate)
	assert.Nil(t, out.CreateExpense.OriginalAmount)
	assert.Equal(t, "USD", out.CreateExpense.Currency)
}

func TestConvertValidation(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	for _, tc := range []struct {
		name  string
		extra map[string]any
		field string
	}{
		{"a rate without convertTo", map[string]any{"rate": "0.9"}, "input.rate"},
		{"13 significant digits", map[string]any{"convertTo": "EUR", "rate": "0.9000000000001"}, "input.rate"},
		{"a zero rate", map[string]any{"convertTo": "EUR", "rate": "0"}, "input.rate"},
		{"a negative rate", map[string]any{"convertTo": "EUR", "rate": "-0.9"}, "input.rate"},
		{"an unknown currency", map[string]any{"convertTo": "XYZ", "rate": "0.9"}, "input.convertTo"},
		{"a rate to the same currency", map[string]any{"convertTo": "usd", "rate": "0.9"}, "input.rate"},
		{"converts to nothing", map[string]any{"amount": "0.01", "convertTo": "EUR", "rate": "0.0001"}, "input.amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := alice.Fails("BAD_USER_INPUT", convertedExpense, "in", dinner(group, tc.extra))
			assert.Equal(t, tc.field, res.Field())
		})
	}
	var list struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	alice.Must(&list, `query($id: ID!) { group(id: $id) { expenses(first: 10) { nodes { id } } } }`, "id", group)
	assert.Empty(t, list.Group.Expenses.Nodes, "nothing was written")
}

// EXACT splits and several payers' amounts carry over as weights, so that
// everything still adds up exactly in the recorded currency.
func TestConvertCarriesExactAmounts(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	var out struct{ CreateExpense convertedResult }
	alice.Must(&out, convertedExpense, "in", map[string]any{
		"groupId": group, "amount": "100.00", "currency": "USD", "description": "Hotel", "convertTo": "JPY", "rate": "161.3",
		"payers":    []map[string]any{{"userId": "111", "amount": "60.00"}, {"userId": "222", "amount": "40.00"}},
		"splitType": "EXACT",
		"splits":    []map[string]any{{"userId": "111", "amount": "33.33"}, {"userId": "222", "amount": "33.33"}, {"userId": "333", "amount": "33.34"}},
	})
	e := out.CreateExpense
	assert.Equal(t, "16130", e.Amount)
	assert.Equal(t, map[string]string{"111": "9678", "222": "6452"}, amounts(e.Payers))
	// 16130 × 33.33/100 = 5376.129, 5376.129, 5377.742: the spare yen goes
	// to the largest remainder.
	assert.Equal(t, map[string]string{"111": "5376", "222": "5376", "333": "5378"}, amounts(e.Splits))
}

func TestConvertAtTheDaysRate(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	var out struct{ CreateExpense convertedResult }
	s.alice.Must(&out, convertedExpense, "in", dinner(s.group, map[string]any{"convertTo": "EUR"}))
	e := out.CreateExpense
	assert.Equal(t, "0.934142923867", *e.Rate, "1 / 1.0705, rounded once to 12 digits")
	assert.Equal(t, "ECB", *e.RateSource)
	assert.Equal(t, "2024-06-28", *e.RateDate, "the ECB's publication day, not the request's")
	assert.Equal(t, "50.44", e.Amount, "54.00 × 0.934142923867 = 50.4437…")
	assert.Equal(t, "54.00", *e.OriginalAmount)
	require.Equal(t, int32(1), s.ecb.hits.Load())
	assert.Zero(t, s.gecko.hits.Load(), "TON's provider is not asked for a fiat pair")

	// The provider goes down: nothing changes, the kept table answers.
	s.ecb.status.Store(http.StatusServiceUnavailable)
	var again struct{ CreateExpense convertedResult }
	s.bob.Must(&again, convertedExpense, "in", dinner(s.group, map[string]any{"convertTo": "EUR"}))
	assert.Equal(t, *e.Rate, *again.CreateExpense.Rate)
	assert.Equal(t, e.Amount, again.CreateExpense.Amount)

	// Another instance on the same table reads the kept table too.
	other := &rates.Service{Fiat: &ecb.Client{URL: s.ecb.srv.URL, HTTP: http.DefaultClient}, Keeper: s.api.Store, Now: s.clock.Now}
	r, err := other.Rate(t.Context(), "USD", "EUR")
	require.NoError(t, err)
	assert.Equal(t, *e.Rate, r.Value.String())
	assert.Equal(t, int32(1), s.ecb.hits.Load(), "kept in the table: the provider was not asked again")

	// TON: CoinGecko's price, read as text.
	s.alice.Must(&out, convertedExpense, "in", dinner(s.group, map[string]any{"amount": "10.00", "currency": "EUR", "convertTo": "TON"}))
	assert.Equal(t, "0.14542493165", *out.CreateExpense.Rate)
	assert.Equal(t, "CoinGecko", *out.CreateExpense.RateSource)
	assert.Equal(t, "1.454249316", out.CreateExpense.Amount)
	// A fiat currency CoinGecko lacks goes through EUR and the ECB.
	s.alice.Must(&out, convertedExpense, "in", dinner(s.group, map[string]any{"amount": "1500", "currency": "JPY", "convertTo": "TON"}))
	assert.Equal(t, "ECB+CoinGecko", *out.CreateExpense.RateSource, "JPY → EUR at the ECB, EUR → TON at CoinGecko")
	assert.Equal(t, "2024-06-28", *out.CreateExpense.RateDate)
	assert.Equal(t, "0.00084578883128", *out.CreateExpense.Rate)
}

func TestRateUnavailable(t *testing.T) {
	t.Run("the provider is down and nothing is kept", func(t *testing.T) {
		s := withRates(t, recordedECB(t), tonPrice)
		s.ecb.status.Store(http.StatusServiceUnavailable)
		res := s.alice.Fails("RATE_UNAVAILABLE", convertedExpense, "in", dinner(s.group, map[string]any{"convertTo": "EUR"}))
		assert.Contains(t, res.Errors[0].Message, "pass `rate`")
		// Given by hand it works.
		var out struct{ CreateExpense convertedResult }
		s.alice.Must(&out, convertedExpense, "in", dinner(s.group, map[string]any{"convertTo": "EUR", "rate": "0.93"}))
		assert.Equal(t, "50.22", out.CreateExpense.Amount)
	})
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"429 rate limited", http.StatusTooManyRequests, ""},
		{"422 missing parameter", http.StatusUnprocessableEntity, ""},
		{"{} for an unknown id", 0, `{}`},
	} {
		t.Run("CoinGecko "+tc.name, func(t *testing.T) {
			s := withRates(t, recordedECB(t), tc.body)
			s.gecko.status.Store(int32(tc.status))
			s.alice.Fails("RATE_UNAVAILABLE", convertedExpense, "in", dinner(s.group, map[string]any{"currency": "EUR", "convertTo": "TON"}))
			// The fiat pairs are unaffected.
			var out struct{ CreateExpense convertedResult }
			s.alice.Must(&out, convertedExpense, "in", dinner(s.group, map[string]any{"convertTo": "EUR"}))
		})
	}
	t.Run("a currency the ECB no longer lists", func(t *testing.T) {
		without := strings.Replace(recordedECB(t), "\t\t\t<Cube currency='BGN' rate='1.9558'/>\n", "", 1)
		s := withRates(t, without, tonPrice)
		res := s.alice.Fails("RATE_UNAVAILABLE", convertedExpense, "in", dinner(s.group, map[string]any{"currency": "BGN", "convertTo": "EUR"}))
		assert.Equal(t, "BGN", res.Errors[0].Extensions["currency"])
		assert.Contains(t, res.Errors[0].Message, "BGN")
	})
}

const updateConverted = `mutation($id: ID!, $in: UpdateExpenseInput!) { updateExpense(id: $id, input: $in) {
	id version amount currency originalAmount originalCurrency rate rateSource rateDate
	payers { userId amount } splits { userId amount }
	history { version changes { field before after } }
} }`

func TestUpdateConvertedExpense(t *testing.T) {
	s := withRates(t, recordedECB(t), tonPrice)
	var out struct{ CreateExpense convertedResult }
	s.alice.Must(&out, convertedExpense, "in", dinner(s.group, map[string]any{"convertTo": "EUR", "rate": "0.9"}))
	id := out.CreateExpense.ID
	type updated struct {
		UpdateExpense struct {
			convertedResult
			History []struct {
				Version int
				Changes []struct {
					Field         string
					Before, After *string
				}
			}
		}
	}
	// A description: the conversion stays as recorded.
	var u updated
	s.alice.Must(&u, updateConverted, "id", id, "in", map[string]any{"expectedVersion": 1, "description": "Supper"})
	assert.Equal(t, "48.60", u.UpdateExpense.Amount)
	assert.Equal(t, "0.9", *u.UpdateExpense.Rate)
	assert.Equal(t, "manual", *u.UpdateExpense.RateSource)
	assert.Zero(t, s.ecb.hits.Load())

	// A new original amount converts again at the recorded rate.
	s.alice.Must(&u, updateConverted, "id", id, "in", map[string]any{"expectedVersion": 2, "amount": "60.00"})
	assert.Equal(t, "54.00", u.UpdateExpense.Amount)
	assert.Equal(t, "EUR", u.UpdateExpense.Currency)
	assert.Equal(t, "60.00", *u.UpdateExpense.OriginalAmount)
	assert.Equal(t, "0.9", *u.UpdateExpense.Rate)
	assert.Zero(t, s.ecb.hits.Load())

	// Asking for the day's rate: convertTo given, no rate.
	s.alice.Must(&u, updateConverted, "id", id, "in", map[string]any{"expectedVersion": 3, "convertTo": "EUR"})
	assert.Equal(t, "ECB", *u.UpdateExpense.RateSource)
	assert.Equal(t, "0.934142923867", *u.UpdateExpense.Rate)
	assert.Equal(t, "56.05", u.UpdateExpense.Amount)
	// The history records the rate's change.
	var rateChange []string
	for _, c := range u.UpdateExpense.History[0].Changes {
		if c.Field == "rate" {
			rateChange = []string{*c.Before, *c.After}
		}
	}
	assert.Equal(t, []string{"0.9", "0.934142923867"}, rateChange)

	// convertTo the original currency removes the conversion.
	s.alice.Must(&u, updateConverted, "id", id, "in", map[string]any{"expectedVersion": 4, "convertTo": "USD"})
	assert.Equal(t, "60.00", u.UpdateExpense.Amount)
	assert.Equal(t, "USD", u.UpdateExpense.Currency)
	assert.Nil(t, u.UpdateExpense.Rate)
	assert.Nil(t, u.UpdateExpense.OriginalAmount)

	// And a plain expense can be converted by an edit.
	s.alice.Must(&u, updateConverted, "id", id, "in", map[string]any{"expectedVersion": 5, "convertTo": "GBP", "rate": "0.79"})
	assert.Equal(t, "47.40", u.UpdateExpense.Amount)
	assert.Equal(t, "GBP", u.UpdateExpense.Currency)
}

// A retry of a conversion at a rate given by hand, with the same idempotency
// key, is the same request on any day: after midnight UTC it returns the
// expense the first request made, and nothing is written twice.
func TestRetryOfAGivenRateAfterMidnight(t *testing.T) {
	clock, alice, group := tripWithoutProviders(t, time.Date(2024, 6, 29, 23, 59, 0, 0, time.UTC))
	in := dinner(group, map[string]any{"convertTo": "EUR", "rate": "0.9", "idempotencyKey": "dinner-1"})
	var first, retry struct{ CreateExpense convertedResult }
	alice.Must(&first, convertedExpense, "in", in)
	clock.Add(2 * time.Minute)
	alice.Must(&retry, convertedExpense, "in", in)
	assert.Equal(t, first.CreateExpense.ID, retry.CreateExpense.ID)
	assert.Equal(t, "2024-06-29", *retry.CreateExpense.RateDate, "the day the rate was given")
	var g struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	alice.Must(&g, `query($id: ID!) { group(id: $id) { expenses(first: 10) { nodes { id } } } }`, "id", group)
	assert.Len(t, g.Group.Expenses.Nodes, 1)
}

// tripWithoutProviders is a group of Alice, Bob and Carol on a server with
// no rate provider (make run's case), its clock at now.
func tripWithoutProviders(t *testing.T, now time.Time) (*testclock.Clock, *apitest.User, string) {
	clock := testclock.At(now)
	api := apitest.New(t, apitest.WithClock(clock))
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	api.User("222", "Bob").Join(group)
	api.User("333", "Carol").Join(group)
	return clock, alice, group
}
