package wiring

import (
	"context"
	"log/slog"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/live"
	"github.com/fracti/api/live/redisbroker"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/store"
)

// startLive feeds the hub subscriptions are served from until ctx ends,
// and returns it with its Delivery; nil when live updates are off. Without
// a broker the instance reads the stream for its own hub (the embedded
// mode); with one, events come from the broker (startStream publishes them).
func startLive(ctx context.Context, lc config.Live, sc config.Stream, dc config.Store, s *store.Store, log *slog.Logger, m *metrics.Metrics) (*live.Hub, *live.Delivery, error) {
	if !lc.On {
		return nil, nil, nil
	}
	streams, err := store.NewStreamsClient(ctx, clientConfig(dc), m.DynamoDBStreams())
	if err != nil {
		return nil, nil, err
	}
	hub := live.NewHub(s, lc.Buffer, log)
	d, err := newDelivery(sc, dc.Table, s, hub, streams, log, m)
	if err != nil {
		return nil, nil, err
	}
	s.OnCommit(d.Committed)
	go d.Run(ctx)
	if d.Broker == nil {
		tailer := &live.Tailer{API: streams, StreamARN: s.StreamARN, Handle: d.Records, Log: log, Poll: sc.Poll}
		hub.Status = tailer.Err
		go tailer.Run(ctx)
	}
	return hub, d, nil
}

// newDelivery is the hub's Delivery: with a broker, events come from the
// broker and, while it is down, from this instance's own reading of the
// stream, each shard from its lease's checkpoint. table prefixes the
// broker's channels, so that tables sharing a broker keep apart.
func newDelivery(c config.Stream, table string, s *store.Store, hub *live.Hub, streams live.StreamsAPI, log *slog.Logger, m *metrics.Metrics) (*live.Delivery, error) {
	// A gap in a group's events is read from the activity log.
	d := &live.Delivery{Hub: hub, Log: log, OnFallback: m.LiveFallback, Order: &live.Order{Changes: live.TableChanges(s)}}
	if c.Broker == "" {
		return d, nil
	}
	b, err := redisbroker.New(c.Broker, table, log)
	if err != nil {
		return nil, err
	}
	d.Broker = b
	started := time.Now()
	d.Fallback = func() *live.Tailer {
		return &live.Tailer{API: streams, StreamARN: s.StreamARN, Poll: c.Poll, Log: log, FromStart: true,
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
// (nothing the lease holders did not publish is skipped); a shard without
// one from its trim horizon.
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
