// Package ecb reads the European Central Bank's euro foreign exchange
// reference rates, the eurofxref-daily.xml file: every rate is the price of
// 1 EUR in a currency, with as many decimals as the ECB gives that currency,
// for the last publication day (working days, about 16:00 CET).
package ecb

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/fracti/api/money"
	"github.com/fracti/api/rates"
)

// Name is the provider name recorded as a rate's source.
const Name = "ECB"

// ExampleURL is where the ECB publishes the daily file.
const ExampleURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

// Client fetches the daily reference rates from one URL.
type Client struct {
	URL  string
	HTTP *http.Client
}

// Name is the provider name, "ECB".
func (c *Client) Name() string { return Name }

// Fetch gets and parses the file.
func (c *Client) Fetch(ctx context.Context) (rates.Quotes, error) {
	body, err := rates.Get(ctx, c.HTTP, Name, c.URL)
	if err != nil {
		return rates.Quotes{}, err
	}
	return Parse(body)
}

// envelope is the file's shape: Cube (no attributes) > Cube time= > Cube currency= rate=.
type envelope struct {
	Days []struct {
		Time  string `xml:"time,attr"`
		Rates []struct {
			Currency string `xml:"currency,attr"`
			Rate     string `xml:"rate,attr"`
		} `xml:"Cube"`
	} `xml:"Cube>Cube"`
}

// Parse reads an eurofxref file; of several days (the history files) it
// takes the latest. A figure that is not a positive decimal, or a code that
// is not a currency we know, is left out rather than failing the whole
// table: the other currencies are still good.
func Parse(body []byte) (rates.Quotes, error) {
	var env envelope
	dec := xml.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil {
		return rates.Quotes{}, fmt.Errorf("%s: not the reference rates XML: %w", Name, err)
	}
	best := -1
	for i, d := range env.Days {
		if _, err := time.Parse(time.DateOnly, d.Time); err != nil {
			continue
		}
		if best < 0 || d.Time > env.Days[best].Time {
			best = i
		}
	}
	if best < 0 {
		return rates.Quotes{}, errors.New(Name + ": no dated rates in the answer")
	}
	day := env.Days[best]
	q := rates.Quotes{Provider: Name, Date: day.Time, Base: "EUR", Prices: map[string]money.Decimal{}}
	for _, r := range day.Rates {
		cur, err := money.LookupCurrency(r.Currency)
		if err != nil || cur.Code() != r.Currency || cur.Code() == "EUR" {
			continue
		}
		d, err := money.ParseDecimal(r.Rate)
		if err != nil || d.Sign() <= 0 {
			continue
		}
		q.Prices[cur.Code()] = d
	}
	if len(q.Prices) == 0 {
		return rates.Quotes{}, errors.New(Name + ": no rates in the answer")
	}
	return q, nil
}
