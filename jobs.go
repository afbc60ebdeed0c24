package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/fracti/api/metrics"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/schedule"
	"github.com/fracti/api/store"
	"github.com/fracti/api/tonverify"
)

// recurringConfig is how the scheduler creates recurring expenses'
// occurrences.
type recurringConfig struct {
	Interval time.Duration // RECURRING_INTERVAL: how often each instance looks for due series
	CatchUp  int           // RECURRING_CATCH_UP: most occurrences of one series per run
}

// loadRecurringConfig reads RECURRING_INTERVAL (default 1m) and
// RECURRING_CATCH_UP (default store.DefaultCatchUp).
func loadRecurringConfig() (recurringConfig, error) {
	var c recurringConfig
	var err error
	if c.Interval, err = durationEnv("RECURRING_INTERVAL", time.Minute); err != nil {
		return c, err
	}
	if c.CatchUp, err = positiveIntEnv("RECURRING_CATCH_UP", store.DefaultCatchUp); err != nil {
		return c, err
	}
	return c, nil
}

// startJobs starts this instance's timed work (package schedule): every
// instance runs every job, and each job's conditional writes make its work
// happen once however many run it. ton is the verifier the API uses too.
func startJobs(cfg config, s *store.Store, log *slog.Logger, m *metrics.Metrics, n *notify.Notifier, ton *tonverify.Verifier) *schedule.Scheduler {
	jobs := schedule.New(schedule.Options{Log: log, Observe: m.JobRun})
	jobs.Register("recurring", cfg.Recurring.Interval, recurringJob(s, cfg.Recurring.CatchUp, log))
	jobs.Register("ton-verify", cfg.TON.Interval, tonVerifyJob(ton, log))
	if cfg.Notify.On && n != nil {
		registerNotifyJobs(jobs, n, cfg.Notify.JobInterval, log)
	}
	jobs.Start()
	return jobs
}

// recurringJob creates the recurring expenses' occurrences that are due.
func recurringJob(s *store.Store, catchUp int, log *slog.Logger) schedule.Job {
	return func(ctx context.Context) error {
		run, err := s.RunRecurring(ctx, catchUp)
		if run.Created > 0 || run.Paused > 0 {
			log.Info("recurring expenses", "due", run.Due, "created", run.Created, "paused", run.Paused)
		}
		return err
	}
}
