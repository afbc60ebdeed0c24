package wiring

import (
	"context"
	"log/slog"

	"github.com/fracti/api/config"
	"github.com/fracti/api/schedule"
	"github.com/fracti/api/store"
	"github.com/fracti/api/tonapi"
	"github.com/fracti/api/tonverify"
)

// TONVerifier is the checker of TON payments over s. The API is asked only
// when a payment is submitted or due: a server without it starts and
// serves, and its submissions stay PENDING until it answers.
func TONVerifier(c config.TON, s *store.Store, log *slog.Logger) *tonverify.Verifier {
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
