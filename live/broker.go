package live

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/fracti/api/store"
)

// Broker carries activity events between instances (LIVE_BROKER): one
// channel per group, and one per user for the events that bring a user
// into a group (Event.Joiner: member_joined, group_created). The instance reading a shard publishes its
// groups' events; every instance receives the channels its local
// subscribers watch.
type Broker interface {
	// Publish sends events (of any groups, each group's in order) on their
	// groups' channels, and each event a user joins by also on that user's.
	Publish(ctx context.Context, events []store.Event) error
	// Receive hands what arrives on the watched channels to deliver until
	// ctx ends, resubscribing after a reconnection.
	Receive(ctx context.Context, deliver func(ctx context.Context, events []store.Event))
	// Err is nil while the broker answers.
	Err() error
	// WatchAll receives every group's channel, for a hub that does not say
	// what it watches.
	WatchAll()
	Watcher
}

// Publisher takes events into a hub; *Hub implements it.
type Publisher interface {
	Publish(ctx context.Context, events []store.Event)
}

// Defaults of Delivery.
const (
	// DefaultBrokerDownAfter is how long the broker must fail before the
	// instance reads the stream itself.
	DefaultBrokerDownAfter = time.Second
	// DefaultFallbackGrace is how long the fallback reader goes on after the
	// broker is back: long enough for the shards' readers to publish again
	// what they could not while it was down (their retry waits at most 5s).
	DefaultFallbackGrace = 10 * time.Second
	// commitQueue bounds the events committed here waiting for delivery; a
	// full queue drops them from the fast path only (the stream brings them).
	commitQueue = 4096
)

// Delivery brings events to this instance's hub, each once and in each
// group's order (Order), whichever way they come: the writer's own commit (at once), the broker,
// or the stream (read by this instance when there is no broker, or while
// the broker is down: the fallback, from the shards' lease checkpoints).
type Delivery struct {
	// Hub receives the events.
	Hub Publisher
	// Order drops what was passed on already and holds back what comes
	// before its turn (nil: an Order without Changes); its Out is set by
	// the Delivery.
	Order *Order
	// Broker is nil for the embedded mode: this instance reads the stream
	// for its own hub (Records as a Tailer's Handle).
	Broker Broker
	// Fallback makes the reader of the stream used while the broker is
	// down; its Handle is set by the Delivery.
	Fallback func() *Tailer
	// DownAfter and Grace: DefaultBrokerDownAfter, DefaultFallbackGrace.
	DownAfter, Grace time.Duration
	// OnFallback is told when the fallback starts and stops (metrics).
	OnFallback func(on bool)
	// Log reports the broker's outages.
	Log *slog.Logger

	once     sync.Once
	queue    chan store.Event
	mu       sync.Mutex
	fallback *Tailer
}

func (d *Delivery) init() {
	d.once.Do(func() {
		d.queue = make(chan store.Event, commitQueue)
		if d.Log == nil {
			d.Log = slog.Default()
		}
		if d.Order == nil {
			d.Order = &Order{}
		}
		if d.Order.Log == nil {
			d.Order.Log = d.Log
		}
		d.Order.Out = d.Hub.Publish
		if d.DownAfter <= 0 {
			d.DownAfter = DefaultBrokerDownAfter
		}
		if d.Grace <= 0 {
			d.Grace = DefaultFallbackGrace
		}
	})
}

// Committed takes an event this process just committed (store.OnCommit):
// it is published and delivered at once, without waiting for the stream.
// It never blocks.
func (d *Delivery) Committed(ev store.Event) {
	d.init()
	select {
	case d.queue <- ev:
	default: // the stream brings it a little later
	}
}

// Deliver passes the events not seen before to the hub, in each group's
// order (Order).
func (d *Delivery) Deliver(ctx context.Context, events []store.Event) {
	d.init()
	d.Order.Take(ctx, events)
}

// Records delivers the activity events among stream records (a Tailer's
// Handle), leaving backlog records out: they were written before anyone
// here could be subscribed.
func (d *Delivery) Records(ctx context.Context, records []Record) {
	if events := EventsOf(records, d.Log); len(events) > 0 {
		d.Deliver(ctx, events)
	}
}

// PublishRecords publishes the activity events among a leased shard's
// records on the broker (backlog left out); an error leaves the batch to
// be read again, so that nothing is checkpointed that was not published.
func (d *Delivery) PublishRecords(ctx context.Context, records []Record) error {
	if events := EventsOf(records, d.Log); len(events) > 0 {
		return d.Broker.Publish(ctx, events)
	}
	return nil
}

// GroupRuns yields events in their order as runs of consecutive events of
// one group (each run a subslice of events).
func GroupRuns(events []store.Event) iter.Seq[[]store.Event] {
	return func(yield func([]store.Event) bool) {
		for len(events) > 0 {
			n := 1
			for n < len(events) && events[n].GroupID == events[0].GroupID {
				n++
			}
			if !yield(events[:n]) {
				return
			}
			events = events[n:]
		}
	}
}

// EventsOf decodes the activity events among stream records, skipping the
// backlog (events before their record's BacklogBefore).
func EventsOf(records []Record, log *slog.Logger) []store.Event {
	var events []store.Event
	for _, r := range records {
		ev, ok, err := store.EventFromImage(r.NewImage, r.OldImage)
		if err != nil {
			log.Error("live updates: undecodable event in the stream", "err", err)
			continue
		}
		if !ok || ev.At.Before(r.BacklogBefore) {
			continue
		}
		events = append(events, ev)
	}
	return events
}

// Status is nil while events reach this instance: the broker answers, or
// the fallback reader reads the stream.
func (d *Delivery) Status() error {
	if d.Broker == nil {
		return nil
	}
	err := d.Broker.Err()
	if err == nil {
		return nil
	}
	d.mu.Lock()
	fb := d.fallback
	d.mu.Unlock()
	if fb != nil && fb.Err() == nil {
		return nil
	}
	return errors.Join(errors.New("the broker is unreachable and the stream is not read yet"), err)
}

// Falling reports whether the fallback reader runs.
func (d *Delivery) Falling() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fallback != nil
}

// Run delivers the events committed here, and with a broker receives from
// it and watches it, until ctx ends.
func (d *Delivery) Run(ctx context.Context) {
	d.init()
	go d.commits(ctx)
	go d.fill(ctx)
	if d.Broker == nil {
		<-ctx.Done()
		return
	}
	go d.Broker.Receive(ctx, d.Deliver)
	d.watch(ctx)
}

// fill reads the groups' gaps from the table every half of Order's Wait.
func (d *Delivery) fill(ctx context.Context) {
	tick := time.NewTicker(d.Order.wait() / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			d.Order.Fill(ctx)
		}
	}
}

// commits publishes and delivers what this process committed, in order.
func (d *Delivery) commits(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-d.queue:
			batch := []store.Event{ev}
		more:
			for len(batch) < 100 {
				select {
				case ev := <-d.queue:
					batch = append(batch, ev)
				default:
					break more
				}
			}
			if d.Broker != nil && d.Broker.Err() == nil {
				// Other instances hear of it at once too; a failure is
				// harmless: the shard's reader publishes it again.
				_ = d.Broker.Publish(ctx, batch)
			}
			d.Deliver(ctx, batch)
		}
	}
}

// watch starts the fallback reader when the broker has failed for
// DownAfter, and stops it once the broker has answered again for Grace.
func (d *Delivery) watch(ctx context.Context) {
	var downSince, upSince time.Time
	var stop context.CancelFunc
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if stop != nil {
				stop()
			}
			return
		case now := <-tick.C:
			err := d.Broker.Err()
			switch {
			case err != nil:
				upSince = time.Time{}
				if downSince.IsZero() {
					downSince = now
				}
				if stop == nil && now.Sub(downSince) >= d.DownAfter {
					d.Log.Warn("live updates: the broker is down; reading the stream here until it is back", "err", err)
					stop = d.startFallback(ctx)
				}
			case stop != nil:
				downSince = time.Time{}
				if upSince.IsZero() {
					upSince = now
				}
				if now.Sub(upSince) >= d.Grace {
					d.Log.Info("live updates: the broker is back; the stream is read by the shards' lease holders again")
					stop()
					stop = nil
				}
			default:
				downSince = time.Time{}
			}
		}
	}
}

// startFallback runs the fallback reader until the returned stop.
func (d *Delivery) startFallback(ctx context.Context) context.CancelFunc {
	t := d.Fallback()
	t.Handle = d.Records
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	d.mu.Lock()
	d.fallback = t
	d.mu.Unlock()
	if d.OnFallback != nil {
		d.OnFallback(true)
	}
	go func() {
		defer close(done)
		t.Run(fctx)
	}()
	return func() {
		cancel()
		<-done
		d.mu.Lock()
		d.fallback = nil
		d.mu.Unlock()
		if d.OnFallback != nil {
			d.OnFallback(false)
		}
	}
}
