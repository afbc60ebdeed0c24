// Package notify tells people in Telegram what changed in their groups: it
// consumes the activity events from the table's DynamoDB Stream (live's
// tailer, read from the stream's trim horizon), batches each group's
// changes into one chat message per window, sends direct messages to the
// members an expense names, queues digest members' lines, and sends
// reminders and digests on schedule. Every send is claimed first by a
// conditional marker item, so an event reaches a destination once however
// many instances run and however often they restart.
package notify

import (
	"context"
	"log/slog"
	"slices"
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
	pending map[string][]store.Event // group → events waiting for its window
	flights sync.WaitGroup
	// taken is when each batch in flight (waiting or being sent) was
	// taken, on the wall clock: Unfinished's low-water mark.
	taken      map[uint64]time.Time
	nextFlight uint64
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
	return &Notifier{opts: opts, pending: map[string][]store.Event{}, taken: map[uint64]time.Time{}}
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
// activity event joins its group's batch, which is sent Window after its
// first event arrived.
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
		n.mu.Lock()
		first := len(n.pending[ev.GroupID]) == 0
		n.pending[ev.GroupID] = append(n.pending[ev.GroupID], ev)
		if first {
			n.flights.Add(1)
			groupID, id := ev.GroupID, n.nextFlight
			n.nextFlight++
			n.taken[id] = time.Now()
			time.AfterFunc(n.opts.Window, func() {
				defer n.flights.Done()
				defer n.landed(id)
				n.flush(ctx, groupID)
			})
		}
		n.mu.Unlock()
	}
}

// landed forgets a batch's flight: it was sent, dead-lettered or dropped.
func (n *Notifier) landed(id uint64) {
	n.mu.Lock()
	delete(n.taken, id)
	n.mu.Unlock()
}

// Unfinished is the notifier's low-water mark for the stream's
// checkpoints (live.LeasedTailer's Unfinished): when the oldest batch not
// yet sent (waiting for its window, or being sent and retried) was taken,
// on the wall clock; ok is false when none is.
func (n *Notifier) Unfinished() (since time.Time, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, at := range n.taken {
		if !ok || at.Before(since) {
			since, ok = at, true
		}
	}
	return since, ok
}

// Wait returns once every batch taken so far has been sent (tests, and a
// `notify` process that is stopping).
func (n *Notifier) Wait() { n.flights.Wait() }

// flush sends a group's batch.
func (n *Notifier) flush(ctx context.Context, groupID string) {
	n.mu.Lock()
	events := n.pending[groupID]
	delete(n.pending, groupID)
	n.mu.Unlock()
	if ctx.Err() != nil {
		return // not claimed: read again from the stream after a restart
	}
	slices.SortFunc(events, func(a, b store.Event) int { return int(a.Seq - b.Seq) })
	events = slices.CompactFunc(events, func(a, b store.Event) bool { return a.Seq == b.Seq })
	if err := n.sendBatch(ctx, groupID, events); err != nil && ctx.Err() == nil {
		n.log().Error("notifier: a group's changes were not all sent", "group", groupID, "err", err)
	}
}
