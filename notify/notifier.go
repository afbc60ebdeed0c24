// Package notify tells people in Telegram what changed in their groups: it
// consumes the activity events from the table's DynamoDB Stream (live's
// tailer, read from the stream's trim horizon), batches each group's
// changes into one chat message per window (a window item in the table that
// one instance owns at a time, so that one window is one message however
// many instances read the events), sends direct messages to the
// members an expense names, queues digest members' lines, and sends
// reminders and digests on schedule. Every send is claimed first by a
// conditional marker item, so an event reaches a destination once however
// many instances run and however often they restart.
package notify

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync"
	"time"

	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// Defaults of Options.
const (
	DefaultWindow      = 20 * time.Second
	DefaultMaxAge      = time.Hour
	DefaultRetries     = 5
	DefaultBaseBackoff = time.Second
	DefaultMaxBackoff  = time.Minute
	DefaultClaimGrace  = 10 * time.Second
	// DefaultRemindTimeout bounds remindDebtors' wait for Telegram.
	DefaultRemindTimeout = 5 * time.Second
)

// Options configure a Notifier.
type Options struct {
	// Store is the table; Bot the Bot API client (server.go builds one).
	Store *store.Store
	Bot   *telegram.Client
	// Links makes the button that opens the Mini App on a group.
	Links Links
	// Window is how long a group's changes gather into one chat message
	// (NOTIFY_BATCH_WINDOW).
	Window time.Duration
	// ClaimGrace is how long past its window's end an instance's claim of a
	// group's window lasts: an owner that has not closed it by then (it
	// died, or stalled) is taken over by another instance that read one of
	// its events.
	ClaimGrace time.Duration
	// Instance names this notifier as the owner of the windows it claims
	// ("": a random name; two notifiers never share one).
	Instance string
	// MaxAge skips events older than this when they are read: after a
	// restart the stream is read from its start (up to 24 hours back), and
	// news older than this is no longer worth a message (NOTIFY_MAX_AGE).
	MaxAge time.Duration
	// Limiter spaces this process's sends (nil: a new one).
	Limiter *telegram.Limiter
	// Retries is how many times a temporary failure or a 429 is retried;
	// BaseBackoff and MaxBackoff bound the wait of one without retry_after.
	Retries                 int
	BaseBackoff, MaxBackoff time.Duration
	// RemindTimeout is how long RemindDebtors waits for Telegram in all
	// (NOTIFY_REMIND_TIMEOUT); what is not sent by then stays queued.
	RemindTimeout time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Log receives what went wrong (nil: slog.Default()).
	Log *slog.Logger
}

// Links makes the Mini App links of buttons.
type Links struct {
	BotUsername string // TELEGRAM_BOT_USERNAME, without the @
	AppName     string // TELEGRAM_APP_NAME
}

// GroupURL opens the Mini App on the group ("" when either name is unset).
func (l Links) GroupURL(groupID string) string {
	if l.BotUsername == "" || l.AppName == "" {
		return ""
	}
	return "https://t.me/" + l.BotUsername + "/" + l.AppName + "?startapp=" + groupID
}

// Notifier sends a table's changes to Telegram.
type Notifier struct {
	opts Options

	mu      sync.Mutex
	groups  map[string]*flight // a group's events this instance has taken and not yet seen sent
	flights sync.WaitGroup
}

// New makes a Notifier; zero options take their defaults.
func New(opts Options) *Notifier {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.Retries <= 0 {
		opts.Retries = DefaultRetries
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = DefaultBaseBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Limiter == nil {
		opts.Limiter = telegram.NewLimiter(nil)
	}
	if opts.RemindTimeout <= 0 {
		opts.RemindTimeout = DefaultRemindTimeout
	}
	if opts.ClaimGrace <= 0 {
		opts.ClaimGrace = DefaultClaimGrace
	}
	if opts.Instance == "" {
		opts.Instance = rand.Text()
	}
	return &Notifier{opts: opts, groups: map[string]*flight{}}
}

func (n *Notifier) now() time.Time { return n.opts.Now() }

func (n *Notifier) log() *slog.Logger {
	if n.opts.Log == nil {
		return slog.Default()
	}
	return n.opts.Log
}

// Tail returns a tailer that feeds this notifier from the table's stream,
// from the oldest record the stream keeps (Tailer.FromStart): what was
// written while no notifier ran is still sent, and the markers keep what
// was sent before from going out again.
func (n *Notifier) Tail(api live.StreamsAPI, streamARN func(context.Context) (string, error)) *live.Tailer {
	return &live.Tailer{API: api, StreamARN: streamARN, Handle: n.HandleRecords, Log: n.opts.Log, FromStart: true}
}

// notable lists the events that become messages.
var notable = map[store.EventType]bool{
	store.EventExpenseCreated: true, store.EventExpenseUpdated: true, store.EventExpenseDeleted: true,
	store.EventExpenseRestored: true, store.EventSettlementCreated: true, store.EventSettlementCompleted: true,
	store.EventMemberJoined: true, store.EventMemberLeft: true, store.EventMemberRemoved: true,
}

// HandleRecords takes a shard's records from the tailer: each notable
// activity event joins its group's batch window (see fly).
func (n *Notifier) HandleRecords(ctx context.Context, records []live.Record) {
	for _, r := range records {
		ev, ok, err := store.EventFromImage(r.NewImage, r.OldImage)
		if err != nil {
			n.log().Error("notifier: undecodable event", "err", err)
			continue
		}
		if !ok || !notable[ev.Type] || n.now().Sub(ev.At) > n.opts.MaxAge {
			continue
		}
		n.take(ctx, ev.GroupID, ev.Seq)
	}
}

// take hands event seq of the group to the group's flight, started if none
// runs.
func (n *Notifier) take(ctx context.Context, groupID string, seq int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := n.groups[groupID]
	if f == nil {
		f = &flight{wake: make(chan struct{}, 1)}
		n.groups[groupID] = f
		n.flights.Add(1)
		go n.fly(ctx, groupID, f)
	}
	if len(f.pending) == 0 {
		f.pendingSince = time.Now()
	}
	f.pending = append(f.pending, seq)
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Unfinished is the notifier's low-water mark for the stream's
// checkpoints (live.LeasedTailer's Unfinished): when the oldest event not
// yet seen sent was taken, on the wall clock (waiting to join its group's
// window, or in a window not yet closed, whoever owns it); ok is false
// when none is.
func (n *Notifier) Unfinished() (since time.Time, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, f := range n.groups {
		for _, at := range []time.Time{f.pendingSince, f.windowSince} {
			if !at.IsZero() && (!ok || at.Before(since)) {
				since, ok = at, true
			}
		}
	}
	return since, ok
}

// Wait returns once every batch taken so far has been sent (tests, and a
// `notify` process that is stopping).
func (n *Notifier) Wait() { n.flights.Wait() }
