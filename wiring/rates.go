package wiring

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/rates"
	"github.com/fracti/api/rates/coingecko"
	"github.com/fracti/api/rates/ecb"
	"github.com/fracti/api/store"
)

// Rates is the rates service over the providers c names, keeping their
// tables in s; nil when none is configured (conversions then need their
// rate given).
func Rates(c config.Rates, s *store.Store, log *slog.Logger) *rates.Service {
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
