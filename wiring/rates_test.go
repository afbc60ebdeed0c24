package wiring

import (
	"testing"
	"time"

	"github.com/fracti/api/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRates: no provider configured, no service (the server serves, and
// conversions need a rate); each URL configured, its provider.
func TestRates(t *testing.T) {
	assert.Nil(t, Rates(config.Rates{Timeout: 5 * time.Second}, nil, nil))

	svc := Rates(config.Rates{FiatURL: "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
		CryptoURL: "http://127.0.0.1:9999/api/v3/simple/price", Timeout: 2 * time.Second}, nil, nil)
	require.NotNil(t, svc)
	assert.Equal(t, "ECB", svc.Fiat.Name())
	assert.Equal(t, "CoinGecko", svc.Crypto.Name())
}
