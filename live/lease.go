package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/fracti/api/store"
)

// LeaseStore keeps the shard leases; the store implements it.
type LeaseStore interface {
	ListLeases(ctx context.Context, stream string) ([]store.Lease, error)
	CreateLease(ctx context.Context, stream, shardID, parentID string) error
	TakeLease(ctx context.Context, l store.Lease, owner string) (store.Lease, error)
	RenewLease(ctx context.Context, l store.Lease) (store.Lease, error)
	ReleaseLease(ctx context.Context, l store.Lease) (store.Lease, error)
	CheckpointLease(ctx context.Context, l store.Lease, seq string, finished bool) error
	DeleteLease(ctx context.Context, l store.Lease) error
}

// BacklogMargin is how much older than a reader's start an event may be
// and still not count as backlog (writers' clocks differ a little).
const BacklogMargin = time.Minute

// The consumers of the stream, each with its own lease set.
const (
	ConsumerPublisher = "publisher" // publishes the events on the broker
	ConsumerNotifier  = "notifier"  // sends the Telegram notifications
)

// DefaultLeaseTimeout is how long a lease's counter may stand still before
// another instance takes the shard over (LEASE_TIMEOUT).
const DefaultLeaseTimeout = 10 * time.Second

// LeasedTailer reads a DynamoDB Stream through shard leases kept in the
// table: each shard is read by one instance at a time, whatever the number
// of instances, from where the last reader's checkpoint says. An instance
// takes free leases, and expired ones (a counter that stood still for
// Timeout on its own clock), up to its fair share of the shards; one
// holding more than its share gives one up each round, and one holding less
// while none is free takes one from the instance holding the most. A
// split's children are leased only once their parent's lease is finished
// (read to its end). Records are handled at least once: the checkpoint is
// written after Handle returns, so a shard taken over is read again from
// the last batch its reader finished.
type LeasedTailer struct {
	// API reads the stream; StreamARN names it.
	API       StreamsAPI
	StreamARN func(ctx context.Context) (string, error)
	// Leases keeps the leases; Owner names this instance in them (unique
	// per process).
	Leases LeaseStore
	Owner  string
	// Consumer names this reader's lease set (ConsumerPublisher,
	// ConsumerNotifier): each consumer reads every shard through its own
	// leases, so two consumers never take each other's ("": one set).
	Consumer string
	// Handle takes each batch of an owned shard's records, in order; an
	// error leaves the batch unhandled (not checkpointed), to be read again.
	Handle func(ctx context.Context, records []Record) error
	// Timeout is LEASE_TIMEOUT (default DefaultLeaseTimeout); leases are
	// renewed every third of it.
	Timeout time.Duration
	// Poll is the wait between reads of a shard that had nothing new.
	Poll time.Duration
	// CheckpointLag holds a batch's checkpoint back this long after Handle
	// returned, for a consumer that finishes its work later (the notifier
	// sends a window after it took an event): a shard taken over is then
	// read again from before anything unfinished. 0: at once.
	CheckpointLag time.Duration
	// Unfinished, when set, is the consumer's low-water mark: since when
	// the oldest work it took and has not finished waits (ok false: none).
	// A batch is checkpointed only once nothing taken by then is unfinished
	// (the notifier sends a window after taking an event, and retries).
	Unfinished func() (since time.Time, ok bool)
	// Now is the clock expiry is judged by (nil: time.Now).
	Now func() time.Time
	// Log reports trouble.
	Log *slog.Logger

	mu      sync.Mutex
	arn     string
	held    map[string]*heldLease
	seen    map[string]seenLease
	started time.Time
	err     error
	wake    chan struct{}
	readers sync.WaitGroup
}

// heldLease is a lease this instance holds, and its reader.
type heldLease struct {
	lease  store.Lease
	cancel context.CancelFunc
	done   chan struct{} // closed when the reader returned
	// stopped: the reader returned by itself; finished: the shard was read
	// to its end (guarded by the tailer's mu).
	stopped, finished bool
}

// seenLease is when a lease's counter was first seen at its value.
type seenLease struct {
	counter int64
	at      time.Time
}

func (t *LeasedTailer) now() time.Time {
	if t.Now == nil {
		return time.Now()
	}
	return t.Now()
}

func (t *LeasedTailer) timeout() time.Duration {
	if t.Timeout <= 0 {
		return DefaultLeaseTimeout
	}
	return t.Timeout
}

func (t *LeasedTailer) log() *slog.Logger {
	if t.Log == nil {
		return slog.Default()
	}
	return t.Log
}

func (t *LeasedTailer) init() {
	if t.held == nil {
		t.held, t.seen, t.wake = map[string]*heldLease{}, map[string]seenLease{}, make(chan struct{}, 1)
		t.started = t.now()
	}
}

// Err is nil once a round of the leases went through, and says why not
// otherwise.
func (t *LeasedTailer) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == nil {
		return errors.New("the stream's leases are not read yet")
	}
	return t.err
}

// Held lists the shards this instance reads now.
func (t *LeasedTailer) Held() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []string
	for id := range t.held {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Run takes, renews and balances leases every third of Timeout (sooner
// when a shard ends) until ctx ends, then stops its readers and releases
// its leases so that another instance takes them at once.
func (t *LeasedTailer) Run(ctx context.Context) {
	for { // Step inits first, before t.wake is read
		if err := t.Step(ctx); err != nil && ctx.Err() == nil {
			t.log().Error("stream leases: a round failed", "err", err)
		}
		select {
		case <-ctx.Done():
			t.releaseAll()
			return
		case <-t.wake:
		case <-time.After(t.timeout() / 3):
		}
	}
}

// releaseAll stops every reader and gives every lease up.
func (t *LeasedTailer) releaseAll() {
	t.mu.Lock()
	held := t.held
	t.held = map[string]*heldLease{}
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, h := range held {
		h.cancel()
		<-h.done
		if _, err := t.Leases.ReleaseLease(ctx, h.lease); err != nil {
			t.log().Warn("stream leases: could not release a lease at shutdown", "shard", h.lease.Shard, "err", err)
		}
	}
	if t.arn == "" {
		return
	}
	// A lease taken by the round that shutdown interrupted may be ours in
	// the table though its answer never came back: give it up too, rather
	// than leave it to time out.
	leases, err := t.Leases.ListLeases(ctx, store.LeaseSet(store.StreamLabel(t.arn), t.Consumer))
	if err != nil {
		t.log().Warn("stream leases: could not list the leases at shutdown", "err", err)
		return
	}
	for _, l := range leases {
		if l.Owner != t.Owner {
			continue
		}
		if _, err := t.Leases.ReleaseLease(ctx, l); err != nil && !errors.Is(err, store.ErrLeaseLost) {
			t.log().Warn("stream leases: could not release a lease at shutdown", "shard", l.Shard, "err", err)
		}
	}
}

// Step is one round: list the shards and the leases, create the missing
// leases, renew the ones held, give up or take leases toward the fair
// share, and start a reader for each lease taken.
func (t *LeasedTailer) Step(ctx context.Context) error {
	t.mu.Lock()
	t.init()
	t.mu.Unlock()
	err := t.step(ctx)
	t.mu.Lock()
	t.err = err
	t.mu.Unlock()
	return err
}

func (t *LeasedTailer) step(ctx context.Context) error {
	arn, err := t.StreamARN(ctx)
	if err != nil {
		return err
	}
	if t.arn != "" && arn != t.arn {
		t.log().Warn("stream leases: the table's stream changed", "from", t.arn, "to", arn)
		t.stopAll()
	}
	t.arn = arn
	stream := store.LeaseSet(store.StreamLabel(arn), t.Consumer)
	shards, err := describeShards(ctx, t.API, arn)
	if err != nil {
		return err
	}
	leases, err := t.Leases.ListLeases(ctx, stream)
	if err != nil {
		return err
	}
	described := make(map[string]bool, len(shards))
	for _, sh := range shards {
		described[aws.ToString(sh.ShardId)] = true
	}
	byShard := map[string]store.Lease{}
	for _, l := range leases {
		if !described[l.Shard] {
			// Its records are past the stream's 24 hours: nothing is left
			// to read, and its children need not wait for it.
			t.forget(ctx, l)
			continue
		}
		byShard[l.Shard] = l
	}
	for _, sh := range shards {
		id := aws.ToString(sh.ShardId)
		if _, ok := byShard[id]; !ok {
			if err := t.Leases.CreateLease(ctx, stream, id, aws.ToString(sh.ParentShardId)); err != nil {
				return err
			}
			byShard[id] = store.Lease{Stream: stream, Shard: id, Parent: aws.ToString(sh.ParentShardId)}
		}
	}
	t.renew(ctx, byShard)
	return t.balance(ctx, byShard)
}

// forget deletes the lease of a shard the stream no longer has, unless
// this instance still reads it (its reader stops by itself).
func (t *LeasedTailer) forget(ctx context.Context, l store.Lease) {
	t.mu.Lock()
	_, mine := t.held[l.Shard]
	t.mu.Unlock()
	delete(t.seen, l.Shard)
	if mine {
		return
	}
	if err := t.Leases.DeleteLease(ctx, l); err != nil && !errors.Is(err, store.ErrLeaseLost) {
		t.log().Warn("stream leases: deleting the lease of a shard gone from the stream failed", "shard", l.Shard, "err", err)
	}
}

// renew renews every lease held, and stops reading the ones lost or ended.
func (t *LeasedTailer) renew(ctx context.Context, byShard map[string]store.Lease) {
	t.mu.Lock()
	held := make(map[string]*heldLease, len(t.held))
	for id, h := range t.held {
		held[id] = h
	}
	t.mu.Unlock()
	for id, h := range held {
		current := byShard[id]
		t.mu.Lock()
		stopped, finished := h.stopped, h.finished
		if current.Owner == t.Owner && current.Counter != h.lease.Counter {
			// A renewal (or the take) went through but its answer was
			// lost: the lease is still ours, at the table's counter.
			h.lease.Counter = current.Counter
		}
		t.mu.Unlock()
		if stopped || current.Owner != t.Owner || current.Counter != h.lease.Counter {
			mine := current.Owner == t.Owner && current.Counter == h.lease.Counter
			t.drop(ctx, id, h, mine)
			if mine {
				current.Owner, current.Finished = "", current.Finished || finished
				current.Counter++
				byShard[id] = current
			}
			continue
		}
		renewed, err := t.Leases.RenewLease(ctx, h.lease)
		if errors.Is(err, store.ErrLeaseLost) {
			t.log().Warn("stream leases: lost the lease of a shard", "shard", id)
			t.drop(ctx, id, h, false)
			continue
		}
		if err != nil {
			t.log().Warn("stream leases: renewing failed", "shard", id, "err", err)
			continue
		}
		t.mu.Lock()
		h.lease = renewed
		t.mu.Unlock()
		byShard[id] = renewed
	}
}

// drop stops reading a shard, and releases its lease when release says so.
func (t *LeasedTailer) drop(ctx context.Context, id string, h *heldLease, release bool) {
	h.cancel()
	<-h.done
	t.mu.Lock()
	delete(t.held, id)
	t.mu.Unlock()
	if release {
		if _, err := t.Leases.ReleaseLease(ctx, h.lease); err != nil && !errors.Is(err, store.ErrLeaseLost) {
			t.log().Warn("stream leases: releasing failed", "shard", id, "err", err)
		}
	}
}

// stopAll stops every reader (the stream was replaced).
func (t *LeasedTailer) stopAll() {
	t.mu.Lock()
	held := t.held
	t.held = map[string]*heldLease{}
	t.mu.Unlock()
	for _, h := range held {
		h.cancel()
		<-h.done
	}
}

// balance takes or gives up leases toward this instance's fair share.
func (t *LeasedTailer) balance(ctx context.Context, byShard map[string]store.Lease) error {
	now := t.now()
	owners := map[string]int{t.Owner: 0}
	var available []store.Lease // free or expired, and ready to read
	unfinished := 0
	for id, l := range byShard {
		if l.Finished {
			continue
		}
		unfinished++
		t.mu.Lock()
		_, reading := t.held[id]
		t.mu.Unlock()
		// Ours but not read here: a take whose answer was lost, or a lease
		// held by this owner before; nobody else will take it for Timeout.
		expired := l.Owner == "" || (l.Owner == t.Owner && !reading)
		if l.Owner != "" && l.Owner != t.Owner {
			seen, ok := t.seen[id]
			if !ok || seen.counter != l.Counter {
				t.seen[id] = seenLease{counter: l.Counter, at: now}
			} else if now.Sub(seen.at) >= t.timeout() {
				expired = true
			}
		}
		if !expired && l.Owner != "" {
			owners[l.Owner]++
		}
		if parent, ok := byShard[l.Parent]; ok && !parent.Finished {
			continue // the parent's records come first
		}
		if expired {
			available = append(available, l)
		}
	}
	share := (unfinished + len(owners) - 1) / len(owners)
	t.mu.Lock()
	mine := len(t.held)
	t.mu.Unlock()
	if mine > share {
		// Give one up: another instance takes it from the checkpoint.
		t.mu.Lock()
		var id string
		var h *heldLease
		for id, h = range t.held {
			break
		}
		t.mu.Unlock()
		t.drop(ctx, id, h, true)
		return nil
	}
	sort.Slice(available, func(i, j int) bool { return available[i].Shard < available[j].Shard })
	for _, l := range available {
		if mine >= share {
			break
		}
		if t.take(ctx, l) {
			mine++
		}
	}
	if mine < share {
		t.steal(ctx, byShard, owners, share, share-mine)
	}
	return nil
}

// steal takes one lease from the instance holding the most, when nothing
// is free and it holds more than the fair share, or as many while this
// instance lacks more than one (as the KCL does: 4 shards on 3 instances
// settle at 2, 1, 1).
func (t *LeasedTailer) steal(ctx context.Context, byShard map[string]store.Lease, owners map[string]int, share, lacking int) {
	var victim string
	for o, n := range owners {
		if o != t.Owner && (victim == "" || n > owners[victim]) {
			victim = o
		}
	}
	if victim == "" || !(owners[victim] > share || (lacking > 1 && owners[victim] >= share)) {
		return
	}
	for _, l := range byShard {
		if l.Owner == victim && !l.Finished {
			t.take(ctx, l)
			return
		}
	}
}

// take takes a lease and starts reading its shard; false when another
// instance was first.
func (t *LeasedTailer) take(ctx context.Context, l store.Lease) bool {
	taken, err := t.Leases.TakeLease(ctx, l, t.Owner)
	if err != nil {
		if !errors.Is(err, store.ErrLeaseLost) {
			t.log().Warn("stream leases: taking a lease failed", "shard", l.Shard, "err", err)
		}
		return false
	}
	if l.Owner != "" {
		t.log().Info("stream leases: took over a shard", "shard", l.Shard, "from", l.Owner, "checkpoint", taken.Checkpoint)
	}
	readCtx, cancel := context.WithCancel(ctx)
	h := &heldLease{lease: taken, cancel: cancel, done: make(chan struct{})}
	t.mu.Lock()
	t.held[l.Shard] = h
	arn := t.arn
	t.mu.Unlock()
	r := shardReader{API: t.API, log: t.log(), arn: arn, shard: l.Shard, from: types.ShardIteratorTypeTrimHorizon,
		after: taken.Checkpoint, handle: t.Handle,
		handled: t.checkpointer(taken, h)}
	if taken.Checkpoint == "" {
		// Nobody read this shard before: what it holds from before its
		// lease was created is backlog (the notifier still wants it); a
		// minute's margin for writers' clocks. (A lease from before leases
		// recorded their creation: this instance's start.)
		since := taken.Created
		if since.IsZero() {
			since = t.started
		}
		r.backlogBefore = since.Add(-BacklogMargin)
	}
	poll := t.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	t.readers.Add(1)
	go func() {
		defer t.readers.Done()
		defer close(h.done)
		r.run(readCtx, poll, func() {})
		if readCtx.Err() == nil {
			t.mu.Lock()
			h.stopped = true
			t.mu.Unlock()
			select {
			case t.wake <- struct{}{}:
			default:
			}
		}
	}()
	return true
}

// maxWaiting bounds a shard's batches waiting for their checkpoint: past
// it every other one is forgotten (a checkpoint then comes a little later).
const maxWaiting = 1024

// checkpointer writes a held shard's checkpoints as its reader hands
// batches over (and after each read), each batch's once it has settled:
// CheckpointLag after it was handled, and once the consumer finished all it
// took by then (Unfinished; the notifier sends a batch a window after taking
// it: a checkpoint past it would lose it if this instance died meanwhile).
// At the shard's end the lease is marked finished as soon as its last batch
// settled. A lost lease stops the reader.
func (t *LeasedTailer) checkpointer(l store.Lease, h *heldLease) func(ctx context.Context, seq string, ended bool) error {
	type handled struct {
		seq string
		at  time.Time
	}
	var waiting []handled
	last := l.Checkpoint
	settled := func(now time.Time) int {
		due := -1
		since, busy := time.Time{}, false
		if t.Unfinished != nil {
			since, busy = t.Unfinished()
		}
		for i, w := range waiting {
			if w.at.After(now.Add(-t.CheckpointLag)) || (busy && !since.After(w.at)) {
				break
			}
			due = i
		}
		return due
	}
	return func(ctx context.Context, seq string, ended bool) error {
		if seq != last || (ended && len(waiting) == 0) {
			waiting = append(waiting, handled{seq: seq, at: t.now()})
			last = seq
			if len(waiting) > maxWaiting {
				thinned := waiting[:0]
				for i, w := range waiting {
					if i%2 == 1 || i == len(waiting)-1 {
						thinned = append(thinned, w)
					}
				}
				waiting = thinned
			}
		}
		due := settled(t.now())
		for ended && due < len(waiting)-1 && ctx.Err() == nil {
			sleep(ctx, 50*time.Millisecond) // the shard's last batches settle first
			due = settled(t.now())
		}
		if due < 0 || ctx.Err() != nil {
			return nil
		}
		err := t.Leases.CheckpointLease(ctx, l, waiting[due].seq, ended)
		if errors.Is(err, store.ErrLeaseLost) {
			return err
		}
		if err != nil {
			if ctx.Err() == nil {
				t.log().Warn("stream leases: checkpoint failed", "shard", l.Shard, "err", err)
			}
			return nil
		}
		waiting = waiting[due+1:]
		if ended {
			t.mu.Lock()
			h.finished = true
			t.mu.Unlock()
		}
		return nil
	}
}

// describeShards lists every shard of the stream, page by page.
func describeShards(ctx context.Context, api StreamsAPI, arn string) ([]types.Shard, error) {
	t := &Tailer{API: api}
	shards, err := t.describe(ctx, arn)
	if err != nil {
		return nil, fmt.Errorf("stream leases: %w", err)
	}
	return shards, nil
}
