package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/fracti/api/rates"
	"github.com/fracti/api/rates/coingecko"
	"github.com/fracti/api/rates/ecb"
	"github.com/fracti/api/store"
)

// defaultRatesTimeout bounds one call to a rate provider: a conversion
// waits for it, and a provider that is slow is as good as down.
const defaultRatesTimeout = 5 * time.Second

// ratesConfig is where the day's exchange rates come from: RATES_URL (the
// ECB's daily reference rates XML), CRYPTO_RATES_URL (a CoinGecko-compatible
// simple/price endpoint, for TON) and RATES_TIMEOUT. Unset URLs mean no
// provider: conversions then need their rate given.
type ratesConfig struct {
	FiatURL, CryptoURL string
	Timeout            time.Duration
}

func loadRatesConfig() (ratesConfig, error) {
	c := ratesConfig{FiatURL: getenv("RATES_URL"), CryptoURL: getenv("CRYPTO_RATES_URL")}
	for name, v := range map[string]string{"RATES_URL": c.FiatURL, "CRYPTO_RATES_URL": c.CryptoURL} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("%s must be an http(s) URL such as %s", name, map[string]string{
				"RATES_URL": ecb.ExampleURL, "CRYPTO_RATES_URL": coingecko.ExampleURL}[name])
		}
	}
	var err error
	c.Timeout, err = durationEnv("RATES_TIMEOUT", defaultRatesTimeout)
	return c, err
}

// service is the rates service over the configured providers, keeping
// their tables in s; nil when none is configured.
func (c ratesConfig) service(s *store.Store, log *slog.Logger) *rates.Service {
	if c.FiatURL == "" && c.CryptoURL == "" {
		return nil
	}
	client := &http.Client{Timeout: c.Timeout}
	svc := &rates.Service{Keeper: s, Now: time.Now, Log: log}
	if c.FiatURL != "" {
		svc.Fiat = &ecb.Client{URL: c.FiatURL, HTTP: client}
	}
	if c.CryptoURL != "" {
		svc.Crypto = &coingecko.Client{URL: c.CryptoURL, HTTP: client, Today: func() string {
			return time.Now().UTC().Format(time.DateOnly)
		}}
	}
	return svc
}
