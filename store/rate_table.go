package store

import (
	"fmt"
	"time"

	"github.com/fracti/api/money"
	"github.com/fracti/api/rates"
)

// rateKeep is how long a kept rate table outlives its day before TTL purges
// it: long enough to read what an expense's rate came from the week after.
const rateKeep = 7 * 24 * time.Hour

// rateTableRecord is the RATE#<day> / PROVIDER#<provider> item: one
// provider's table as it answered on the day it was first fetched.
type rateTableRecord struct {
	itemKey
	Provider string `dynamodbav:"provider"`
	Date     string `dynamodbav:"date"`
	Base     string `dynamodbav:"base"`
	// Prices are strings so that every digit the provider gave is kept as written.
	Prices    map[string]string `dynamodbav:"prices"`
	FetchedAt string            `dynamodbav:"fetchedAt"`
	TTL       int64             `dynamodbav:"ttl"`
}

func rateTableRecordOf(day string, q rates.Quotes, now time.Time) (rateTableRecord, error) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return rateTableRecord{}, fmt.Errorf("rate day %q: %w", day, err)
	}
	prices := make(map[string]string, len(q.Prices))
	for code, p := range q.Prices {
		prices[code] = p.String()
	}
	return rateTableRecord{
		itemKey:  itemKey{PK: ratePK(day), SK: rateSK(q.Provider)},
		Provider: q.Provider, Date: q.Date, Base: q.Base, Prices: prices,
		FetchedAt: formatTime(now), TTL: d.Add(24*time.Hour + rateKeep).Unix(),
	}, nil
}

func (r *rateTableRecord) quotes() (rates.Quotes, error) {
	q := rates.Quotes{Provider: r.Provider, Date: r.Date, Base: r.Base, Prices: make(map[string]money.Decimal, len(r.Prices))}
	for code, p := range r.Prices {
		d, err := money.ParseDecimal(p)
		if err != nil {
			return rates.Quotes{}, fmt.Errorf("kept %s rate %s: %w", r.Provider, code, err)
		}
		q.Prices[code] = d
	}
	return q, nil
}
