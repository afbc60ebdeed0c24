// Package coingecko reads the price of TON from a CoinGecko-compatible
// simple/price endpoint: ?ids=the-open-network&vs_currencies=eur,usd answers
// {"the-open-network":{"eur":1.23,"usd":1.35}}, the price of 1 TON in each
// lower-case currency key. The numbers are read as the text they are (an
// integer such as 29111, "1.0", or 15 and more significant digits), never
// through a float64.
package coingecko

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/fracti/api/money"
	"github.com/fracti/api/rates"
)

// Name is the provider name recorded as a rate's source.
const Name = "CoinGecko"

// ExampleURL is CoinGecko's public endpoint.
const ExampleURL = "https://api.coingecko.com/api/v3/simple/price"

// CoinID is CoinGecko's id for TON.
const CoinID = "the-open-network"

// VsCurrencies are the currencies asked for: the ones groups use most.
// Any other fiat currency is reached through EUR and the ECB's table.
var VsCurrencies = []string{"eur", "usd", "gbp", "chf", "jpy", "cny", "inr", "rub", "uah", "try", "kzt", "aed", "brl", "cad", "aud", "pln"}

// Client fetches the price of TON from one endpoint.
type Client struct {
	URL  string
	HTTP *http.Client
	// Today gives the day a fetched price is dated by: CoinGecko's price is
	// of the moment, so its day is the day it was fetched (UTC).
	Today func() string
}

// Name is the provider name, "CoinGecko".
func (c *Client) Name() string { return Name }

// Fetch asks for TON's price in VsCurrencies. A 429 (rate limited, with no
// retry time), a 422 (a parameter missing) or {} (an unknown id) is an
// error: no rate, never a zero.
func (c *Client) Fetch(ctx context.Context) (rates.Quotes, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return rates.Quotes{}, fmt.Errorf("%s: %w", Name, err)
	}
	qs := u.Query()
	qs.Set("ids", CoinID)
	qs.Set("vs_currencies", strings.Join(VsCurrencies, ","))
	u.RawQuery = qs.Encode()
	body, err := rates.Get(ctx, c.HTTP, Name, u.String())
	if err != nil {
		return rates.Quotes{}, err
	}
	return Parse(body, c.Today())
}

// Parse reads a simple/price answer for TON, dated day. Prices that are
// not positive numbers, and keys that are not currencies we know, are left
// out; an answer with none left is an error.
func Parse(body []byte, day string) (rates.Quotes, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var answer map[string]map[string]any
	if err := dec.Decode(&answer); err != nil {
		return rates.Quotes{}, fmt.Errorf("%s: not a simple/price answer: %w", Name, err)
	}
	q := rates.Quotes{Provider: Name, Date: day, Base: "TON", Prices: map[string]money.Decimal{}}
	for key, v := range answer[CoinID] {
		n, ok := v.(json.Number)
		if !ok {
			continue
		}
		cur, err := money.LookupCurrency(key)
		if err != nil || cur.Code() == "TON" {
			continue
		}
		d, err := NumberDecimal(n)
		if err != nil || d.Sign() <= 0 {
			continue
		}
		q.Prices[cur.Code()] = d
	}
	if len(q.Prices) == 0 {
		return rates.Quotes{}, fmt.Errorf("%s: no price for %s in the answer", Name, CoinID)
	}
	return q, nil
}

// NumberDecimal reads a JSON number's text exactly: "29111", "1.0",
// "1.2345678901234567" or "8.1e-05" (which it writes out as 0.000081).
func NumberDecimal(n json.Number) (money.Decimal, error) {
	s := string(n)
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := s[i+1:]
		e = strings.TrimPrefix(e, "+")
		if _, err := fmt.Sscanf(e, "%d", &exp); err != nil || len(e) > 4 {
			return money.Decimal{}, fmt.Errorf("number %q: bad exponent", s)
		}
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	point := len(intPart) + exp // position of the decimal point in digits
	switch {
	case point <= 0:
		digits = strings.Repeat("0", 1-point) + digits
		point = 1
	case point > len(digits):
		digits += strings.Repeat("0", point-len(digits))
	}
	text := digits[:point]
	if point < len(digits) {
		text += "." + digits[point:]
	}
	if neg {
		text = "-" + text
	}
	d, err := money.ParseDecimal(text)
	if err != nil {
		return money.Decimal{}, errors.Join(fmt.Errorf("number %q", s), err)
	}
	return d, nil
}
