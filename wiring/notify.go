package wiring

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/schedule"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// Notifier is the process's notifier, sending through the one Bot API
// client; nil without a bot (nothing can be sent).
func Notifier(c config.Notify, tg config.Telegram, s *store.Store, bot *telegram.Client, log *slog.Logger) *notify.Notifier {
	if bot == nil {
		return nil
	}
	// Named as the stream's leases name the process: the owner of a batch
	// window is found by its host and pid.
	instance, err := leaseOwner()
	if err != nil {
		log.Warn("the notifier gets a random name", "err", err)
	}
	return notify.New(notify.Options{
		Store: s, Bot: bot, Log: log, Window: c.Window, MaxAge: c.MaxAge, RemindTimeout: c.RemindTimeout, Instance: instance,
		Links: notify.Links{BotUsername: tg.BotUsername, AppName: tg.AppName},
	})
}

// reminders is what remindDebtors sends through: nil (an interface holding
// no notifier would not be nil) without a bot.
func reminders(n *notify.Notifier) graph.Reminders {
	if n == nil {
		return nil
	}
	return n
}

// registerNotifyJobs adds the digests and the weekly reminders to the
// scheduler: every instance runs them, and their stamps make each period's
// messages go once.
func registerNotifyJobs(jobs *schedule.Scheduler, n *notify.Notifier, interval time.Duration, log *slog.Logger) {
	for _, kind := range []store.Digest{store.DigestDaily, store.DigestWeekly} {
		jobs.Register("digest-"+string(kind), interval, func(ctx context.Context) error {
			sent, err := n.SendDigests(ctx, kind)
			if sent > 0 {
				log.Info("digests sent", "kind", kind, "sent", sent)
			}
			return err
		})
	}
	jobs.Register("weekly-reminders", interval, func(ctx context.Context) error {
		posted, err := n.SendWeeklyReminders(ctx)
		if posted > 0 {
			log.Info("weekly reminders posted", "groups", posted)
		}
		return err
	})
}

// registerOutboxJob adds the sending of the outbox (what remindDebtors
// queued) to the scheduler: every instance with a bot runs it, NOTIFY or
// not, since any of them may have queued; each message is taken off the
// outbox by one.
func registerOutboxJob(jobs *schedule.Scheduler, n *notify.Notifier, log *slog.Logger) {
	jobs.Register("notify-outbox", notify.OutboxInterval, func(ctx context.Context) error {
		sent, err := n.SendQueued(ctx)
		if sent > 0 {
			log.Info("queued messages sent", "sent", sent)
		}
		return err
	})
}

// RunNotifier runs n alone until ctx ends or the process is interrupted:
// it reads the table's stream through the shard leases and sends, with
// the digest and weekly reminder jobs; on the way out it releases its
// leases, so that the next instance reads on at once.
func RunNotifier(ctx context.Context, cfg config.Config, s *store.Store, n *notify.Notifier, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	waitStream, err := startStream(ctx, cfg.Stream, cfg.Store, s, log, nil, n, nil)
	if err != nil {
		return err
	}
	jobs := schedule.New(schedule.Options{Log: log})
	registerNotifyJobs(jobs, n, cfg.Notify.JobInterval, log)
	registerOutboxJob(jobs, n, log)
	jobs.Start()
	log.Info("notifier running", "table", cfg.Store.Table, "window", cfg.Notify.Window)
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	defer waitStream(shutdownCtx) // the leases released: the next instance reads on at once
	return jobs.Stop(shutdownCtx)
}
