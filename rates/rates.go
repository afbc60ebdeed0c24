// Package rates gives the day's exchange rate between two currencies from
// the quote tables of outside providers (the ECB's reference rates for fiat
// currencies, a CoinGecko-compatible price for TON), each fetched once a day
// and kept in the table so that every instance uses the same figures all
// day. The provider clients are its subpackages; the arithmetic is money's.
package rates

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/fracti/api/money"
)

// ErrUnavailable reports that no rate can be had: no provider is
// configured for the pair, or it is down and nothing was kept for the day.
var ErrUnavailable = errors.New("no exchange rate is available")

// UnlistedError reports a currency the providers do not quote (BGN left the
// ECB's list in 2026).
type UnlistedError struct {
	Currency string
}

// Error names the currency.
func (e *UnlistedError) Error() string {
	return fmt.Sprintf("no exchange rate is published for %s", e.Currency)
}

// Quotes is one provider's table for one day: the price of one unit of Base
// in each listed currency, exactly as the provider wrote it.
type Quotes struct {
	// Provider names the source, such as "ECB" or "CoinGecko"; it is the rate's rateSource.
	Provider string
	// Date is the provider's own day for the figures (the ECB's publication
	// day), "2006-01-02"; it is the rate's rateDate.
	Date string
	// Base is the currency every price is of, EUR for the ECB and TON for CoinGecko.
	Base string
	// Prices is the price of 1 Base in each currency code (upper case), Base excluded.
	Prices map[string]money.Decimal
}

// price is the price of 1 Base in code (1 for Base itself), and whether it is listed.
func (q *Quotes) price(code string) (*big.Rat, bool) {
	if q == nil {
		return nil, false
	}
	if code == q.Base {
		return big.NewRat(1, 1), true
	}
	p, ok := q.Prices[code]
	if !ok || p.Sign() <= 0 {
		return nil, false
	}
	return p.Rat(), true
}

// Rate is a rate as recorded on an expense or a settlement: the price of one
// unit of From in To, where it came from and the provider's day.
type Rate struct {
	From, To string
	// Value is rounded once to money.RateDigits significant digits.
	Value money.Decimal
	// Source is the provider, or two joined by "+" when the rate goes through
	// a currency both quote ("CoinGecko+ECB").
	Source string
	// Date is the provider's day of the figures used; the ECB's when it took part.
	Date string
}

// Derive works out the rate from → to from the tables given, in order of
// preference: within the first table that lists both it is the ratio of two
// figures (USD → EUR is 1 / the ECB's USD figure); across two it
// goes through a currency both list, EUR first, then the others in
// alphabetical order. Each rate is rounded once, at the end.
func Derive(from, to string, tables ...*Quotes) (Rate, error) {
	for _, q := range tables {
		pf, okf := q.price(from)
		pt, okt := q.price(to)
		if okf && okt {
			return rate(from, to, new(big.Rat).Quo(pt, pf), q.Provider, q.Date), nil
		}
	}
	for _, a := range tables {
		pf, ok := a.price(from)
		if !ok {
			continue
		}
		for _, b := range tables {
			pt, ok := b.price(to)
			if !ok || a == b {
				continue
			}
			for _, via := range common(a, b) {
				va, _ := a.price(via)
				vb, _ := b.price(via)
				// from → via in a, then via → to in b.
				r := new(big.Rat).Mul(new(big.Rat).Quo(va, pf), new(big.Rat).Quo(pt, vb))
				date := b.Date
				if a.Provider == ecbName {
					date = a.Date
				}
				return rate(from, to, r, a.Provider+"+"+b.Provider, date), nil
			}
		}
	}
	for _, code := range []string{from, to} {
		listed := false
		for _, q := range tables {
			if _, ok := q.price(code); ok {
				listed = true
			}
		}
		if !listed {
			return Rate{}, &UnlistedError{Currency: code}
		}
	}
	return Rate{}, fmt.Errorf("%w from %s to %s", ErrUnavailable, from, to)
}

// ecbName is the ECB client's provider name; a rate through it is dated by it.
const ecbName = "ECB"

func rate(from, to string, r *big.Rat, source, date string) Rate {
	return Rate{From: from, To: to, Value: money.RoundRate(r), Source: source, Date: date}
}

// common lists the currencies both tables price, EUR first.
func common(a, b *Quotes) []string {
	var out []string
	for _, code := range append(slices.Sorted(maps.Keys(a.Prices)), a.Base) {
		if _, ok := b.price(code); ok && !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	slices.SortStableFunc(out, func(x, y string) int {
		switch {
		case x == y:
			return 0
		case x == "EUR":
			return -1
		case y == "EUR":
			return 1
		}
		return 0
	})
	return out
}
