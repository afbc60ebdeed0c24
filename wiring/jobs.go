package wiring

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/schedule"
	"github.com/fracti/api/store"
	"github.com/fracti/api/tonverify"
)

// startJobs starts this instance's timed work (package schedule): every
// instance runs every job, and each job's conditional writes make its work
// happen once however many run it. ton is the verifier the API uses too;
// n, when not nil, is the notifier this instance runs; sender, when not
// nil, the one it sends through (remindDebtors' outbox), NOTIFY or not.
func startJobs(rc config.Recurring, pc config.Purge, tc config.TON, nc config.Notify, s *store.Store, r *receipts.Service, log *slog.Logger, m *metrics.Metrics, n, sender *notify.Notifier, ton *tonverify.Verifier) *schedule.Scheduler {
	jobs := schedule.New(schedule.Options{Log: log, Observe: m.JobRun})
	jobs.Register("recurring", rc.Interval, recurringJob(s, rc.CatchUp, log))
	jobs.Register("purge", pc.Interval, purgeJob(s, r, log))
	jobs.Register("ton-verify", tc.Interval, tonVerifyJob(ton, log))
	jobs.Register("erasures", erasureInterval, erasureJob(s, log))
	if n != nil {
		registerNotifyJobs(jobs, n, nc.JobInterval, log)
	}
	if sender != nil {
		registerOutboxJob(jobs, sender, log)
	}
	jobs.Start()
	return jobs
}

// erasureInterval is how often every instance looks for erasures that were
// interrupted (docs/privacy.md); fixed, since they are rare and a run that
// finds none costs one Query.
const erasureInterval = time.Minute

// erasureJob finishes the erasures begun more than store.ErasureResumeAfter
// ago (the request that began one has long ended): each step is
// conditioned and idempotent, so instances running it at once do no harm.
func erasureJob(s *store.Store, log *slog.Logger) schedule.Job {
	return func(ctx context.Context) error {
		done, err := s.ResumeErasures(ctx, time.Now().Add(-store.ErasureResumeAfter))
		if done > 0 {
			log.Info("erasures finished", "users", done)
		}
		return err
	}
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

// purgeJob purges the deleted groups whose restore window has passed, with
// their objects in storage, and the receipts of deleted expenses past
// theirs.
func purgeJob(s *store.Store, r *receipts.Service, log *slog.Logger) schedule.Job {
	return func(ctx context.Context) error {
		run, err := s.PurgeDeletedGroupsWith(ctx, r.PurgeTarget())
		if run.Groups > 0 || run.Items > 0 {
			log.Info("deleted groups purged", "groups", run.Groups, "items", run.Items)
		}
		expenses, receiptsErr := r.PurgeDeletedReceipts(ctx)
		if expenses > 0 {
			log.Info("deleted expenses' receipts purged", "expenses", expenses)
		}
		return errors.Join(err, receiptsErr)
	}
}
