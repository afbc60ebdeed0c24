package coingecko_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/rates"
	"github.com/fracti/api/rates/coingecko"
)

// Answers recorded from CoinGecko, as public repositories quote them.
const (
	// A TON price, quoted in a trading bot's comments ("CoinGecko:
	// {"the-open-network":{"usd":1.33,"rub":104.78}}").
	recordedTON = `{"the-open-network":{"usd":1.33,"rub":104.78}}`
	// Two ids in one answer, from a project's rate-provider notes (2026-08-02).
	recordedTwoIDs = `{"the-open-network":{"rub":110.21},"tether":{"rub":79.21}}`
	// simple/price with full float64 digits, from a NestJS price service's test
	// factory (generateSimplePrice); the id is changed to TON's below.
	recordedLongDigits = `{"ethereum":{"usd":2272.194867253841,"usd_market_cap":272895913402.66522,"usd_24h_vol":6827306177.886258,"usd_24h_change":-0.8104607737461819,"eur":2101.0645108266203,"eur_market_cap":252292271940.76367,"last_updated_at":1706524566}}`
	// The 429 body, as several clients record it in comments: no retry time.
	recorded429 = `{"status":{"error_code":429,"error_message":"You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits."}}`
)

type answer struct {
	status int
	body   string
}

// serve answers as CoinGecko does and records the query it was asked.
func serve(t *testing.T, a answer) (*coingecko.Client, *atomic.Value) {
	t.Helper()
	var query atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query.Store(r.URL.Path + "?" + r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(srv.Close)
	return &coingecko.Client{
		URL:   srv.URL + "/api/v3/simple/price",
		HTTP:  &http.Client{Timeout: 2 * time.Second},
		Today: func() string { return "2026-11-24" },
	}, &query
}

func TestFetchPrices(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want map[string]string
	}{
		{"recorded TON answer", recordedTON, map[string]string{"USD": "1.33", "RUB": "104.78"}},
		{"other ids are ignored", recordedTwoIDs, map[string]string{"RUB": "110.21"}},
		{"every digit is kept", strings.Replace(recordedLongDigits, "ethereum", "the-open-network", 1),
			map[string]string{"USD": "2272.194867253841", "EUR": "2101.0645108266203"}},
		{"integers and 1.0", `{"the-open-network":{"eur":29111,"usd":1.0}}`, map[string]string{"EUR": "29111", "USD": "1.0"}},
		{"exponents", `{"the-open-network":{"eur":8.1e-05,"usd":1.5E+3}}`, map[string]string{"EUR": "0.000081", "USD": "1500"}},
		{"zeros, negatives, strings and unknown keys are left out",
			`{"the-open-network":{"eur":0,"usd":-1,"gbp":"1.2","xyz":1.5,"chf":1.1}}`, map[string]string{"CHF": "1.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, query := serve(t, answer{http.StatusOK, tc.body})
			q, err := c.Fetch(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "CoinGecko", q.Provider)
			assert.Equal(t, "TON", q.Base)
			assert.Equal(t, "2026-11-24", q.Date)
			got := map[string]string{}
			for code, d := range q.Prices {
				got[code] = d.String()
			}
			assert.Equal(t, tc.want, got)
			assert.Contains(t, query.Load(), "/api/v3/simple/price?")
			assert.Contains(t, query.Load(), "ids=the-open-network")
			assert.Contains(t, query.Load(), "vs_currencies=eur%2Cusd")
		})
	}
}

// Every failure is "no rate": an error, never a zero price or a panic.
func TestNoRate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a      answer
		status int
	}{
		{"unknown id: {} with 200", answer{http.StatusOK, `{}`}, 0},
		{"no price for TON", answer{http.StatusOK, `{"the-open-network":{}}`}, 0},
		{"missing parameter: 422", answer{http.StatusUnprocessableEntity, `{"error":"Missing parameter vs_currencies"}`}, 422},
		{"rate limited: 429", answer{http.StatusTooManyRequests, recorded429}, 429},
		{"not JSON", answer{http.StatusOK, `<html>busy</html>`}, 0},
		{"a list", answer{http.StatusOK, `[1,2]`}, 0},
		{"null", answer{http.StatusOK, `null`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.a)
			q, err := c.Fetch(context.Background())
			require.Error(t, err)
			assert.Empty(t, q.Prices)
			if tc.status != 0 {
				var se *rates.StatusError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, tc.status, se.Status)
			}
		})
	}
}

func TestNumberDecimal(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "1.0": "1.0", "0.000081": "0.000081", "8.1e-05": "0.000081", "1e3": "1000",
		"1.25E-1": "0.125", "123.456e1": "1234.56", "-2.5": "-2.5", "1e+2": "100",
		"0.1234567890123456789": "0.1234567890123456789",
	} {
		d, err := coingecko.NumberDecimal(json.Number(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, d.String(), in)
	}
	for _, in := range []string{"1e99999", "1e-300", "abc", "1e"} {
		_, err := coingecko.NumberDecimal(json.Number(in))
		assert.Error(t, err, in)
	}
}
