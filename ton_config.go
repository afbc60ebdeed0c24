package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/fracti/api/schedule"
	"github.com/fracti/api/store"
	"github.com/fracti/api/tonapi"
	"github.com/fracti/api/tonverify"
)

// tonConfig is how TON payments are verified on chain (docs/ton.md).
type tonConfig struct {
	APIURL string // TON_API_URL: the toncenter v3 API
	APIKey string // TON_API_KEY: sent as X-API-Key; "" sends none
	// Interval (TON_VERIFY_INTERVAL) is how often each instance looks for
	// due checks, and the wait after a settlement's first check (doubling
	// up to tonverify.DefaultMaxBackoff).
	Interval time.Duration
	// GiveUp (TON_VERIFY_GIVE_UP) is how long after its submission a
	// transaction that does not show is waited for.
	GiveUp time.Duration
}

// loadTonConfig reads TON_API_URL (default tonapi.DefaultURL), TON_API_KEY,
// TON_VERIFY_INTERVAL (default tonverify.DefaultBackoff) and
// TON_VERIFY_GIVE_UP (default tonverify.DefaultGiveUp).
func loadTonConfig() (tonConfig, error) {
	c := tonConfig{APIURL: env("TON_API_URL", tonapi.DefaultURL), APIKey: getenv("TON_API_KEY")}
	var err error
	if c.Interval, err = durationEnv("TON_VERIFY_INTERVAL", tonverify.DefaultBackoff); err != nil {
		return c, err
	}
	if c.GiveUp, err = durationEnv("TON_VERIFY_GIVE_UP", tonverify.DefaultGiveUp); err != nil {
		return c, err
	}
	return c, nil
}

// verifier is the checker of TON payments over s. The API is asked only
// when a payment is submitted or due: a server without it starts and
// serves, and its submissions stay PENDING until it answers.
func (c tonConfig) verifier(s *store.Store, log *slog.Logger) *tonverify.Verifier {
	return &tonverify.Verifier{
		Store: s, API: tonapi.New(c.APIURL, c.APIKey, tonapi.DefaultTimeout), Log: log,
		Backoff: c.Interval, GiveUp: c.GiveUp,
	}
}

// tonVerifyJob makes the TON payment checks that are due.
func tonVerifyJob(v *tonverify.Verifier, log *slog.Logger) schedule.Job {
	return func(ctx context.Context) error {
		run, err := v.RunDue(ctx)
		if run.Due > 0 {
			log.Info("TON payment checks", "due", run.Due, "verified", run.Verified, "failed", run.Failed)
		}
		return err
	}
}
