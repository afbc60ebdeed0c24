package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/fracti/api/graph"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/schedule"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// notifyConfig is how the notifier runs.
type notifyConfig struct {
	On          bool          // NOTIFY: this serve instance runs the notifier too
	Window      time.Duration // NOTIFY_BATCH_WINDOW: a group's changes within it become one message
	MaxAge      time.Duration // NOTIFY_MAX_AGE: older events are not sent (after a restart)
	JobInterval time.Duration // NOTIFY_JOB_INTERVAL: how often digests and weekly reminders are looked for
}

// loadNotifyConfig reads NOTIFY (default false), NOTIFY_BATCH_WINDOW
// (default 20s), NOTIFY_MAX_AGE (default 1h) and NOTIFY_JOB_INTERVAL
// (default 5m).
func loadNotifyConfig() (notifyConfig, error) {
	var c notifyConfig
	var err error
	if c.On, err = strconv.ParseBool(env("NOTIFY", "false")); err != nil {
		return c, fmt.Errorf("NOTIFY must be true or false")
	}
	if c.Window, err = durationEnv("NOTIFY_BATCH_WINDOW", notify.DefaultWindow); err != nil {
		return c, err
	}
	if c.MaxAge, err = durationEnv("NOTIFY_MAX_AGE", notify.DefaultMaxAge); err != nil {
		return c, err
	}
	if c.JobInterval, err = durationEnv("NOTIFY_JOB_INTERVAL", 5*time.Minute); err != nil {
		return c, err
	}
	return c, nil
}

// newNotifier is the process's notifier, sending through the one Bot API
// client; nil without a bot token (nothing can be sent).
func newNotifier(cfg config, s *store.Store, bot *telegram.Client, log *slog.Logger) *notify.Notifier {
	if bot == nil {
		return nil
	}
	return notify.New(notify.Options{
		Store: s, Bot: bot, Log: log, Window: cfg.Notify.Window, MaxAge: cfg.Notify.MaxAge,
		Links: notify.Links{BotUsername: cfg.InviteLinks.BotUsername, AppName: cfg.InviteLinks.AppName},
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

// startNotifier reads the table's stream into n through the shard leases
// until ctx ends; wait waits for its leases to be released.
func startNotifier(ctx context.Context, cfg config, s *store.Store, n *notify.Notifier, m *metrics.Metrics) (wait func(context.Context), err error) {
	return startStream(ctx, cfg, s, slog.Default(), m, n, nil)
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

// notifyCommand runs the notifier alone (`notify`): it tails the stream and
// sends until interrupted, with the digest and weekly reminder jobs; with
// --replay it sends the dead letters again instead, and exits.
func notifyCommand(ctx context.Context, cfg config, args []string, log *slog.Logger, out io.Writer) error {
	replay := len(args) > 0 && args[0] == "--replay"
	if len(args) > 0 && !replay {
		return fmt.Errorf("notify takes no argument but --replay")
	}
	s, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	n := newNotifier(cfg, s, cfg.telegramBot(), log)
	if n == nil {
		return errors.New("notify needs TELEGRAM_BOT_TOKEN")
	}
	if replay {
		sent, failed, err := n.Replay(ctx)
		fmt.Fprintf(out, "dead letters: %d sent, %d failed again (kept)\n", sent, failed)
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	waitStream, err := startNotifier(ctx, cfg, s, n, nil)
	if err != nil {
		return err
	}
	jobs := schedule.New(schedule.Options{Log: log})
	registerNotifyJobs(jobs, n, cfg.Notify.JobInterval, log)
	jobs.Start()
	log.Info("notifier running", "table", cfg.Table, "window", cfg.Notify.Window)
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	defer waitStream(shutdownCtx) // the leases released: the next instance reads on at once
	return jobs.Stop(shutdownCtx)
}
