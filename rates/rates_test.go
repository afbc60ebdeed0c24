package rates_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/money"
	"github.com/fracti/api/rates"
)

func table(provider, date, base string, prices map[string]string) *rates.Quotes {
	q := &rates.Quotes{Provider: provider, Date: date, Base: base, Prices: map[string]money.Decimal{}}
	for code, p := range prices {
		d, err := money.ParseDecimal(p)
		if err != nil {
			panic(err)
		}
		q.Prices[code] = d
	}
	return q
}

// ecbDay has figures of the ECB's file of 2024-06-28 (rates/ecb/testdata), BGN gone.
var ecbDay = table("ECB", "2024-06-28", "EUR", map[string]string{
	"USD": "1.0705", "JPY": "171.94", "CHF": "0.9634", "GBP": "0.84638", "HUF": "395.10",
})

var tonDay = table("CoinGecko", "2024-06-29", "TON", map[string]string{"EUR": "6.8764", "USD": "7.36"})

func TestDerive(t *testing.T) {
	for _, tc := range []struct {
		from, to, want, source, date string
	}{
		{"EUR", "USD", "1.0705", "ECB", "2024-06-28"},
		{"USD", "EUR", "0.934142923867", "ECB", "2024-06-28"},   // 1 / 1.0705
		{"JPY", "CHF", "0.00560311736652", "ECB", "2024-06-28"}, // 0.9634 / 171.94
		{"GBP", "HUF", "466.811597628", "ECB", "2024-06-28"},
		{"TON", "EUR", "6.8764", "CoinGecko", "2024-06-29"},
		{"EUR", "TON", "0.14542493165", "CoinGecko", "2024-06-29"},
		{"USD", "TON", "0.135869565217", "CoinGecko", "2024-06-29"},
		// CoinGecko lacks JPY: TON → EUR → JPY, one rounding, dated by the ECB.
		{"TON", "JPY", "1182.328216", "CoinGecko+ECB", "2024-06-28"},
		{"CHF", "TON", "0.150949690316", "ECB+CoinGecko", "2024-06-28"},
	} {
		t.Run(tc.from+"→"+tc.to, func(t *testing.T) {
			// As the Service asks: the ECB alone for two fiat currencies,
			// TON's table first when TON is one of them.
			tables := []*rates.Quotes{ecbDay}
			if tc.from == "TON" || tc.to == "TON" {
				tables = []*rates.Quotes{tonDay, ecbDay}
			}
			r, err := rates.Derive(tc.from, tc.to, tables...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.Value.String())
			assert.Equal(t, tc.source, r.Source)
			assert.Equal(t, tc.date, r.Date)
			require.NoError(t, money.CheckRate(r.Value))
		})
	}
	_, err := rates.Derive("BGN", "EUR", ecbDay)
	var unlisted *rates.UnlistedError
	require.ErrorAs(t, err, &unlisted)
	assert.Equal(t, "BGN", unlisted.Currency)
	assert.Contains(t, err.Error(), "BGN")
	_, err = rates.Derive("TON", "JPY", tonDay)
	require.ErrorAs(t, err, &unlisted)
	assert.Equal(t, "JPY", unlisted.Currency)
}

// memKeeper keeps tables as the store does: the first kept for a day wins.
type memKeeper struct {
	mu    sync.Mutex
	kept  map[string]rates.Quotes
	reads int
}

func (k *memKeeper) KeptRates(_ context.Context, day, provider string) (rates.Quotes, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reads++
	q, ok := k.kept[day+provider]
	return q, ok, nil
}

func (k *memKeeper) KeepRates(_ context.Context, day string, q rates.Quotes) (rates.Quotes, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old, ok := k.kept[day+q.Provider]; ok {
		return old, nil
	}
	if k.kept == nil {
		k.kept = map[string]rates.Quotes{}
	}
	k.kept[day+q.Provider] = q
	return q, nil
}

// provider answers its table, or fails while down.
type provider struct {
	q     *rates.Quotes
	down  bool
	calls int
}

func (p *provider) Name() string { return p.q.Provider }

func (p *provider) Fetch(context.Context) (rates.Quotes, error) {
	p.calls++
	if p.down {
		return rates.Quotes{}, errors.New("connection refused")
	}
	return *p.q, nil
}

func TestServiceKeepsTheDaysTable(t *testing.T) {
	clock := testclock.At(time.Date(2024, 6, 29, 9, 0, 0, 0, time.UTC))
	keeper := &memKeeper{}
	fiat, crypto := &provider{q: ecbDay}, &provider{q: tonDay}
	a := &rates.Service{Fiat: fiat, Crypto: crypto, Keeper: keeper, Now: clock.Now}
	ctx := context.Background()

	r, err := a.Rate(ctx, "USD", "EUR")
	require.NoError(t, err)
	assert.Equal(t, "0.934142923867", r.Value.String())
	assert.Equal(t, 1, fiat.calls)
	assert.Equal(t, 0, crypto.calls, "TON's provider is asked only for TON")

	// Another instance the same day reads the kept table, even with the provider down.
	fiat.down = true
	b := &rates.Service{Fiat: fiat, Crypto: crypto, Keeper: keeper, Now: clock.Now}
	r2, err := b.Rate(ctx, "USD", "EUR")
	require.NoError(t, err)
	assert.Equal(t, r, r2)
	assert.Equal(t, 1, fiat.calls)
	// And keeps it in memory: no second read of the table.
	reads := keeper.reads
	_, err = b.Rate(ctx, "JPY", "CHF")
	require.NoError(t, err)
	assert.Equal(t, reads, keeper.reads)

	// The next day, with the provider down and nothing kept: unavailable,
	// and the provider is not asked again at once.
	clock.Add(24 * time.Hour)
	_, err = b.Rate(ctx, "USD", "EUR")
	require.ErrorIs(t, err, rates.ErrUnavailable)
	_, err = b.Rate(ctx, "USD", "EUR")
	require.ErrorIs(t, err, rates.ErrUnavailable)
	assert.Equal(t, 2, fiat.calls)
	clock.Add(time.Minute)
	fiat.down = false
	_, err = b.Rate(ctx, "USD", "EUR")
	require.NoError(t, err)
	assert.Equal(t, 3, fiat.calls)
}

func TestServiceUnavailableAndUnlisted(t *testing.T) {
	clock := testclock.At(time.Date(2024, 6, 29, 9, 0, 0, 0, time.UTC))
	ctx := context.Background()
	var none *rates.Service
	_, err := none.Rate(ctx, "USD", "EUR")
	require.ErrorIs(t, err, rates.ErrUnavailable)
	assert.False(t, none.Configured())

	fiatOnly := &rates.Service{Fiat: &provider{q: ecbDay}, Keeper: &memKeeper{}, Now: clock.Now}
	_, err = fiatOnly.Rate(ctx, "TON", "EUR")
	require.ErrorIs(t, err, rates.ErrUnavailable, "no crypto provider configured")
	_, err = fiatOnly.Rate(ctx, "BGN", "EUR")
	var unlisted *rates.UnlistedError
	require.ErrorAs(t, err, &unlisted)
	assert.Equal(t, "BGN", unlisted.Currency)

	// TON → JPY needs both tables: with the ECB down it is unavailable, not unlisted.
	both := &rates.Service{Fiat: &provider{q: ecbDay, down: true}, Crypto: &provider{q: tonDay}, Keeper: &memKeeper{}, Now: clock.Now}
	_, err = both.Rate(ctx, "TON", "JPY")
	require.ErrorIs(t, err, rates.ErrUnavailable)
	r, err := both.Rate(ctx, "TON", "USD")
	require.NoError(t, err, "CoinGecko alone answers TON → USD")
	assert.Equal(t, "7.36", r.Value.String())
}
