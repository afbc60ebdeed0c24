package store_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/rates"
)

func quotes(provider, date string, prices map[string]string) rates.Quotes {
	q := rates.Quotes{Provider: provider, Date: date, Base: "EUR", Prices: map[string]money.Decimal{}}
	for code, p := range prices {
		q.Prices[code] = dec(p)
	}
	return q
}

func dec(s string) money.Decimal {
	d, err := money.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// The first table kept for a day wins; every later one gets it back, with
// every digit as the provider wrote it.
func TestKeepRatesFirstWins(t *testing.T) {
	var calls dynamotest.Counter
	f := newFixture(t, calls.Option())
	first := quotes("ECB", "2026-11-24", map[string]string{"USD": "1.1225", "HUF": "395.10", "IDR": "17487.21"})
	kept, err := f.KeepRates(ctx, "2026-11-25", first)
	require.NoError(t, err)
	assert.Equal(t, first, kept)
	assert.Equal(t, 1, calls.Total(), "one conditional put")

	later := quotes("ECB", "2026-11-25", map[string]string{"USD": "1.2"})
	kept, err = f.KeepRates(ctx, "2026-11-25", later)
	require.NoError(t, err)
	assert.Equal(t, "2026-11-24", kept.Date)
	assert.Equal(t, "395.10", kept.Prices["HUF"].String(), "the figure is read back as written")

	// Racing instances all get the same table.
	var wg sync.WaitGroup
	got := make([]rates.Quotes, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := quotes("CoinGecko", "2026-11-26", map[string]string{"EUR": "1.2" + string(rune('0'+i))})
			var err error
			got[i], err = f.KeepRates(ctx, "2026-11-26", q)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	for _, q := range got {
		assert.Equal(t, got[0], q)
	}
	_, err = f.KeepRates(ctx, "today", first)
	require.Error(t, err)
}
