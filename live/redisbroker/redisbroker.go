// Package redisbroker is live.Broker on Redis 7 (or Valkey, or ElastiCache)
// pub/sub: a channel per group, "<prefix>group:<groupId>", and one per user,
// "<prefix>user:<userId>", each message a JSON array of one group's events.
package redisbroker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/redis/go-redis/v9"
)

// Broker is a live.Broker on one Redis server.
type Broker struct {
	client *redis.Client
	prefix string
	log    *slog.Logger

	ops chan watchOp // (un)subscriptions waiting for the receiver
	// beat is this broker's private heartbeat channel: what the ping
	// publishes there must come back through the pub/sub connection.
	beat string

	mu  sync.Mutex
	err error
	all bool
	// receiving: Receive runs (heartbeats are judged only then); lastBeat
	// is when a heartbeat last came back; reconnected when the pub/sub
	// connection was last made again (what was sent meanwhile is lost).
	receiving             bool
	lastBeat, reconnected time.Time
}

// watchOp is one queued (un)subscription.
type watchOp struct {
	channel string
	on      bool
}

// pingEvery is how often the broker is asked whether it answers (and a
// heartbeat sent through it).
const pingEvery = 250 * time.Millisecond

// beatTimeout is how long a heartbeat may take to come back through the
// pub/sub connection before the broker counts as down.
const beatTimeout = time.Second

// reconnectHold is how long Err reports a reconnection of the pub/sub
// connection: longer than live.DefaultBrokerDownAfter, so that the
// Delivery's fallback reads the stream from behind the checkpoints and
// brings what was published while the connection was down.
const reconnectHold = live.DefaultBrokerDownAfter + time.Second

var _ live.Broker = (*Broker)(nil)

// CheckURL says what is wrong with a broker's URL (nil: nothing).
func CheckURL(url string) error {
	_, err := redis.ParseURL(url)
	return err
}

// New connects to url (redis://[:password@]host:port/db, or rediss:// for
// TLS) lazily; prefix starts every channel name (the table's name, so
// that tables sharing a server keep apart).
func New(url, prefix string, log *slog.Logger) (*Broker, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("LIVE_BROKER: %w", err)
	}
	// Fail fast: an unreachable broker sends the instance to the stream.
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, time.Second, time.Second
	opt.MaxRetries = 1
	if log == nil {
		log = slog.Default()
	}
	// The client's own notes (each failed dial) go to the debug level: an
	// outage is logged once, by the broker's ping.
	redis.SetLogger(debugLog{log})
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	return &Broker{client: redis.NewClient(opt), prefix: prefix + ":", log: log, beat: prefix + ":beat:" + hex.EncodeToString(id),
		ops: make(chan watchOp, 4096), err: errors.New("the broker was not reached yet")}, nil
}

// Close closes the connections.
func (b *Broker) Close() error { return b.client.Close() }

func (b *Broker) groupChannel(id string) string { return b.prefix + "group:" + id }
func (b *Broker) userChannel(id string) string  { return b.prefix + "user:" + id }

// Publish sends each group's events on its channel, and each event by
// which a user joins (Event.Joiner: member_joined, group_created) also on
// that user's.
func (b *Broker) Publish(ctx context.Context, events []store.Event) error {
	for run := range live.GroupRuns(events) {
		if err := b.send(ctx, b.groupChannel(run[0].GroupID), run); err != nil {
			return err
		}
		for _, ev := range run {
			if joiner, ok := ev.Joiner(); ok {
				if err := b.send(ctx, b.userChannel(joiner), []store.Event{ev}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (b *Broker) send(ctx context.Context, channel string, events []store.Event) error {
	payload, err := json.Marshal(events)
	if err != nil {
		return fmt.Errorf("encode events: %w", err)
	}
	if err := b.client.Publish(ctx, channel, payload).Err(); err != nil {
		return fmt.Errorf("publish on the broker: %w", err)
	}
	return nil
}

// Err is nil while the broker answered its last ping, the heartbeats come
// back through the pub/sub connection, and that connection was not made
// again lately (go-redis resubscribes quietly; what was published in
// between never arrives).
func (b *Broker) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	switch {
	case b.err != nil:
		return b.err
	case !b.receiving:
		return nil
	case now.Sub(b.lastBeat) > beatTimeout:
		return errors.New("the broker's heartbeats do not come back through the pub/sub connection")
	case now.Sub(b.reconnected) < reconnectHold:
		return errors.New("the broker's pub/sub connection was made again: events may have been missed")
	}
	return nil
}

// WatchAll receives every group's channel (a pattern subscription).
func (b *Broker) WatchAll() {
	b.mu.Lock()
	b.all = true
	b.mu.Unlock()
}

// WatchGroup subscribes to the group's channel (queued: it never blocks).
func (b *Broker) WatchGroup(groupID string) { b.queue(b.groupChannel(groupID), true) }

// UnwatchGroup unsubscribes from the group's channel.
func (b *Broker) UnwatchGroup(groupID string) { b.queue(b.groupChannel(groupID), false) }

// WatchUser subscribes to the user's channel.
func (b *Broker) WatchUser(userID string) { b.queue(b.userChannel(userID), true) }

// UnwatchUser unsubscribes from the user's channel.
func (b *Broker) UnwatchUser(userID string) { b.queue(b.userChannel(userID), false) }

func (b *Broker) queue(channel string, on bool) {
	select {
	case b.ops <- watchOp{channel: channel, on: on}:
	default:
		b.log.Error("live updates: too many broker subscriptions waiting; one was dropped", "channel", channel, "subscribe", on)
	}
}

// Receive hands each message of the watched channels to deliver until ctx
// ends; the client resubscribes by itself after a reconnection, which Err
// reports for reconnectHold, and a ping and a heartbeat every pingEvery
// tell Err whether the broker answers.
func (b *Broker) Receive(ctx context.Context, deliver func(ctx context.Context, events []store.Event)) {
	b.mu.Lock()
	b.receiving, b.lastBeat = true, time.Now()
	all := b.all
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.receiving = false
		b.mu.Unlock()
	}()
	go b.ping(ctx)
	ps := b.client.Subscribe(ctx, b.beat)
	defer ps.Close()
	if all {
		if err := ps.PSubscribe(ctx, b.prefix+"group:*"); err != nil {
			b.log.Warn("live updates: subscribing to the broker failed; it is retried on reconnection", "err", err)
		}
	}
	// Delivery (Hub.Publish reads each group's membership) runs on one
	// worker, in order, so that heartbeats and watch ops are not held up
	// by deliveries.
	work := make(chan []store.Event, 1024)
	var worker sync.WaitGroup
	worker.Go(func() {
		for evs := range work {
			if ctx.Err() == nil { // as before: nothing is delivered once ctx ends
				deliver(ctx, evs)
			}
		}
	})
	defer func() {
		close(work)
		worker.Wait()
	}()
	messages := ps.ChannelWithSubscriptions()
	beatSubscribed := false
	for {
		select {
		case <-ctx.Done():
			return
		case op := <-b.ops:
			var err error
			if op.on {
				err = ps.Subscribe(ctx, op.channel)
			} else {
				err = ps.Unsubscribe(ctx, op.channel)
			}
			if err != nil {
				b.log.Warn("live updates: a broker (un)subscription failed; it is retried on reconnection", "channel", op.channel, "err", err)
			}
		case msg, ok := <-messages:
			if !ok {
				return
			}
			m, ok := msg.(*redis.Message)
			if sub, isSub := msg.(*redis.Subscription); isSub && sub.Channel == b.beat && sub.Kind == "subscribe" {
				if beatSubscribed {
					// Only a new connection confirms it again.
					b.log.Warn("live updates: the broker's pub/sub connection was made again; events may have been missed")
					b.mu.Lock()
					b.reconnected = time.Now()
					b.mu.Unlock()
				}
				beatSubscribed = true
			}
			if !ok {
				continue
			}
			if m.Channel == b.beat {
				b.mu.Lock()
				b.lastBeat = time.Now()
				b.mu.Unlock()
				continue
			}
			var events []store.Event
			if err := json.Unmarshal([]byte(m.Payload), &events); err != nil {
				b.log.Error("live updates: undecodable broker message", "channel", m.Channel, "err", err)
				continue
			}
			if len(events) > 0 && strings.HasPrefix(m.Channel, b.prefix) {
				select {
				case work <- events:
				case <-ctx.Done():
					return
				}
			}
		}
	}
}

// ping asks the broker whether it answers, every pingEvery.
func (b *Broker) ping(ctx context.Context) {
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := b.client.Ping(pctx).Err()
		if err == nil {
			err = b.client.Publish(pctx, b.beat, "1").Err()
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		b.mu.Lock()
		was := b.err
		b.err = err
		b.mu.Unlock()
		if err != nil && was == nil {
			b.log.Warn("live updates: the broker does not answer", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// debugLog passes the Redis client's notes to slog at the debug level.
type debugLog struct{ log *slog.Logger }

func (d debugLog) Printf(ctx context.Context, format string, v ...any) {
	d.log.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}
