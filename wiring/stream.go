package wiring

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strconv"
	"sync"

	"github.com/fracti/api/config"
	"github.com/fracti/api/live"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/store"
)

// startStream reads the table's stream through the shard leases until ctx
// ends, for each consumer here: the notifier (n), and the broker's
// publisher (d with a broker). Each consumer has its own lease set, so each
// shard is read by one instance per consumer (at most two readers a shard),
// however many run. The returned wait blocks, once ctx has ended, until
// the readers have stopped and released their leases (or its own ctx ends):
// a clean shutdown hands the shards over at once.
func startStream(ctx context.Context, c config.Stream, dc config.Store, s *store.Store, log *slog.Logger, m *metrics.Metrics, n *notify.Notifier, d *live.Delivery) (wait func(context.Context), err error) {
	publish := d != nil && d.Broker != nil
	if n == nil && !publish {
		return func(context.Context) {}, nil
	}
	streams, err := store.NewStreamsClient(ctx, clientConfig(dc), m.DynamoDBStreams())
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
			Timeout: c.LeaseTimeout, Poll: c.Poll, Log: log.With("consumer", consumer), Handle: handle}
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
