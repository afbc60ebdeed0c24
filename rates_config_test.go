package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigRates(t *testing.T) {
	// Unset: no provider, and the server serves (conversions need a rate).
	c, err := loadConfig()
	require.NoError(t, err)
	assert.Equal(t, ratesConfig{Timeout: 5 * time.Second}, c.Rates)
	assert.Nil(t, c.Rates.service(nil, nil))

	t.Setenv("RATES_URL", "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml")
	t.Setenv("CRYPTO_RATES_URL", "http://127.0.0.1:9999/api/v3/simple/price")
	t.Setenv("RATES_TIMEOUT", "2s")
	c, err = loadConfig()
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, c.Rates.Timeout)
	svc := c.Rates.service(nil, nil)
	require.NotNil(t, svc)
	assert.Equal(t, "ECB", svc.Fiat.Name())
	assert.Equal(t, "CoinGecko", svc.Crypto.Name())

	for name, value := range map[string]string{
		"RATES_URL": "www.ecb.europa.eu/eurofxref-daily.xml", "CRYPTO_RATES_URL": "ftp://example.com/price", "RATES_TIMEOUT": "soon",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := loadConfig()
			require.ErrorContains(t, err, name)
		})
	}
}
