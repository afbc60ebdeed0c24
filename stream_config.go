package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/fracti/api/live"
	"github.com/fracti/api/live/redisbroker"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
)

// streamConfig is how the table's stream is read and shared.
type streamConfig struct {
	// Broker is LIVE_BROKER (redis://host:port/db): unset, each instance
	// reads the stream for its own hub (the embedded mode).
	Broker string
	// LeaseTimeout is LEASE_TIMEOUT: how long a shard's lease may go
	// unrenewed before another instance takes the shard over.
	LeaseTimeout time.Duration
}

// loadStreamConfig reads LIVE_BROKER and LEASE_TIMEOUT (default 10s).
func loadStreamConfig() (streamConfig, error) {
	c := streamConfig{Broker: getenv("LIVE_BROKER")}
	if c.Broker != "" {
		if err := redisbroker.CheckURL(c.Broker); err != nil {
			return c, err
		}
	}
	var err error
	if c.LeaseTimeout, err = durationEnv("LEASE_TIMEOUT", live.DefaultLeaseTimeout); err != nil {
		return c, err
	}
	if c.LeaseTimeout < time.Second {
		return c, fmt.Errorf("LEASE_TIMEOUT must be at least 1s")
	}
	return c, nil
}

// newDelivery is the hub's Delivery: with LIVE_BROKER, events come from the
// broker and, while it is down, from this instance's own reading of the
// stream, each shard from its lease's checkpoint.
func newDelivery(cfg config, s *store.Store, hub *live.Hub, streams live.StreamsAPI, log *slog.Logger, m *metrics.Metrics) (*live.Delivery, error) {
	// A gap in a group's events is read from the activity log.
	d := &live.Delivery{Hub: hub, Log: log, OnFallback: m.LiveFallback, Order: &live.Order{Changes: live.TableChanges(s)}}
	if cfg.Stream.Broker == "" {
		return d, nil
	}
	b, err := redisbroker.New(cfg.Stream.Broker, cfg.Table, log)
	if err != nil {
		return nil, err
	}
	d.Broker = b
	started := time.Now()
	d.Fallback = func() *live.Tailer {
		return &live.Tailer{API: streams, StreamARN: s.StreamARN, Poll: cfg.StreamPoll, Log: log, FromStart: true,
			Start: checkpoints(s, log), BacklogBefore: started.Add(-live.BacklogMargin)}
	}
	hub.Status = d.Status
	// The broker subscribes only to the channels this instance's
	// subscribers watch.
	hub.SetWatcher(b)
	m.ObserveStream(func() bool { return b.Err() == nil }, nil)
	return d, nil
}

// checkpoints starts each shard after its publisher lease's checkpoint
// (nothing the lease holders did not publish is skipped); a shard without one from its
// trim horizon.
func checkpoints(s *store.Store, log *slog.Logger) func(ctx context.Context, arn, shardID string) string {
	return func(ctx context.Context, arn, shardID string) string {
		leases, err := s.ListLeases(ctx, store.LeaseSet(store.StreamLabel(arn), live.ConsumerPublisher))
		if err != nil {
			log.Warn("live updates: cannot read the leases' checkpoints; reading the shard from its trim horizon", "shard", shardID, "err", err)
			return ""
		}
		for _, l := range leases {
			if l.Shard == shardID {
				return l.Checkpoint
			}
		}
		return ""
	}
}

// notifierIfOn is the notifier when this serve instance runs it (NOTIFY).
func notifierIfOn(cfg config, n *notify.Notifier) *notify.Notifier {
	if !cfg.Notify.On {
		return nil
	}
	return n
}

// startStream reads the table's stream through the shard leases until ctx
// ends, for each consumer here: the notifier (n), and the broker's
// publisher (d with a broker). Each consumer has its own lease set, so each
// shard is read by one instance per consumer (at most two readers a shard),
// however many run. The returned wait blocks, once ctx has ended, until
// the readers have stopped and released their leases (or its own ctx ends):
// a clean shutdown hands the shards over at once.
func startStream(ctx context.Context, cfg config, s *store.Store, log *slog.Logger, m *metrics.Metrics, n *notify.Notifier, d *live.Delivery) (wait func(context.Context), err error) {
	publish := d != nil && d.Broker != nil
	if n == nil && !publish {
		return func(context.Context) {}, nil
	}
	streams, err := store.NewStreamsClient(ctx, store.ClientConfig{Endpoint: cfg.Endpoint, Region: cfg.Region}, m.DynamoDBStreams())
	if err != nil {
		return nil, err
	}
	owner, err := leaseOwner()
	if err != nil {
		return nil, err
	}
	var readers []*live.LeasedTailer
	leased := func(consumer string, handle func(ctx context.Context, records []live.Record) error) *live.LeasedTailer {
		t := &live.LeasedTailer{API: streams, StreamARN: s.StreamARN, Leases: s, Owner: owner, Consumer: consumer,
			Timeout: cfg.Stream.LeaseTimeout, Poll: cfg.StreamPoll, Log: log.With("consumer", consumer), Handle: handle}
		readers = append(readers, t)
		return t
	}
	if publish {
		leased(live.ConsumerPublisher, d.PublishRecords)
	}
	if n != nil {
		notifier := leased(live.ConsumerNotifier, func(ctx context.Context, records []live.Record) error {
			n.HandleRecords(ctx, records)
			return nil
		})
		// Checkpoints wait for the batches to be sent, however long that takes.
		notifier.Unfinished = n.Unfinished
	}
	m.ObserveStream(nil, func() int {
		held := 0
		for _, t := range readers {
			held += len(t.Held())
		}
		return held
	})
	log.Info("reading the table's stream through shard leases", "owner", owner, "notifier", n != nil, "broker", publish)
	var running sync.WaitGroup
	for _, t := range readers {
		running.Add(1)
		go func() {
			defer running.Done()
			t.Run(ctx)
		}()
	}
	stopped := make(chan struct{})
	go func() {
		running.Wait()
		close(stopped)
	}()
	return func(wctx context.Context) {
		select {
		case <-stopped:
		case <-wctx.Done():
			log.Warn("shutting down: the stream's readers did not release their leases in time; another instance takes them after LEASE_TIMEOUT")
		}
	}, nil
}

// leaseOwner names this process in the leases: host, pid and a random
// part, so that a restarted process never passes for its predecessor.
func leaseOwner() (string, error) {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b), nil
}
