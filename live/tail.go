// Package live delivers a table's changes to the subscribers of this
// instance: it tails the table's DynamoDB Stream (so a write by any instance
// or any tool reaches everyone) and fans the activity events out to
// subscriptions, checking membership for every event.
package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// StreamsAPI is the part of the DynamoDB Streams client the tailer uses.
type StreamsAPI interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Record is one change to one item, as the stream tells it.
type Record struct {
	// NewImage is the item after the change (nil when it was deleted);
	// OldImage the item before it (nil when it was created).
	NewImage, OldImage map[string]ddbtypes.AttributeValue
	// BacklogBefore is set on records read from a shard's trim horizon
	// because no checkpoint said where to begin: an event written before it
	// is backlog, news for a consumer that must not miss what was written
	// while it was down (the notifier), old news for live subscribers
	// (EventsOf). It is judged by the event's own time, not the stream's
	// (rounded) ApproximateCreationDateTime.
	BacklogBefore time.Time
}

// Tailer follows a DynamoDB Stream from its latest position: every shard
// open when it starts is read from LATEST, and every shard that appears
// later (a split's children, a new stream) from TRIM_HORIZON once its parent
// has been read to its end, so records of one item arrive in order and none
// written after the start is missed or repeated.
type Tailer struct {
	// API reads the stream.
	API StreamsAPI
	// StreamARN returns the stream to follow; it is asked again when the
	// stream disappears or the shard list is refreshed.
	StreamARN func(ctx context.Context) (string, error)
	// Handle receives each shard's records in order; calls for different
	// shards may run at once.
	Handle func(ctx context.Context, records []Record)
	// Poll is the wait between reads of a shard that had nothing new
	// (default DefaultPoll).
	Poll time.Duration
	// Refresh is how often the shard list is read again (default DefaultRefresh).
	Refresh time.Duration
	// Log reports trouble reading the stream.
	Log *slog.Logger
	// FromStart reads the shards there at the start from TRIM_HORIZON (the
	// oldest record the stream keeps, up to 24 hours back) instead of
	// LATEST, for a consumer that must not miss what was written while it
	// was down and keeps its own record of what it handled (the notifier's
	// markers). Live updates leave it false.
	FromStart bool
	// Start, when set, gives the sequence number of the last record of a
	// shard already handled: the shard is read after it ("": from where it
	// would be read otherwise). The fallback reader of a broker outage
	// starts each shard from its lease's checkpoint this way.
	Start func(ctx context.Context, streamARN, shardID string) string
	// BacklogBefore is set on every record read (zero: none; Record).
	BacklogBefore time.Time

	mu      sync.Mutex
	healthy error // nil once the stream is being read
	ready   chan struct{}
	once    sync.Once
}

// Ready is closed once every shard open at the start has its iterator:
// from then on, no write is missed.
func (t *Tailer) Ready() <-chan struct{} { return t.readyChan() }

func (t *Tailer) readyChan() chan struct{} {
	t.once.Do(func() { t.ready = make(chan struct{}) })
	return t.ready
}

// DefaultPoll is how often an open shard is read: DynamoDB allows a shard
// five reads a second, shared by every reader (every instance).
const DefaultPoll = 250 * time.Millisecond

// DefaultRefresh is how often the tailer looks for new shards besides the
// moment a shard it reads ends.
const DefaultRefresh = 10 * time.Second

// maxBackoff caps the wait after a failed or throttled read.
const maxBackoff = 5 * time.Second

// getRecordsLimit is the most records one GetRecords returns (DynamoDB's limit).
const getRecordsLimit = 1000

// Err is nil while the stream is being read, and says why not otherwise.
func (t *Tailer) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.healthy
}

func (t *Tailer) setErr(err error) {
	t.mu.Lock()
	t.healthy = err
	t.mu.Unlock()
}

// shardState is what the tailer knows of one shard.
type shardState struct {
	parent  string
	started bool
	done    bool
}

// Run follows the stream until ctx ends.
func (t *Tailer) Run(ctx context.Context) {
	t.setErr(errors.New("the stream is not read yet"))
	poll, refresh := t.Poll, t.Refresh
	if poll <= 0 {
		poll = DefaultPoll
	}
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	var (
		arn    string
		shards = map[string]*shardState{}
		ended  = make(chan string, 64)
		wg     sync.WaitGroup
	)
	defer wg.Wait()
	first := true
	for {
		current, err := t.StreamARN(ctx)
		if err == nil && current != arn {
			if arn != "" {
				t.log().Warn("live updates: the table's stream changed", "from", arn, "to", current)
			}
			// A stream that appears while running is read from its start;
			// the first one from its latest position.
			arn, shards, first = current, map[string]*shardState{}, arn == "" && first
		}
		if err == nil {
			var positioned sync.WaitGroup
			if err = t.startShards(ctx, arn, shards, first, poll, ended, &wg, &positioned); err == nil && first {
				first = false
				go func() {
					positioned.Wait()
					t.setErr(nil)
					close(t.readyChan())
				}()
			}
		}
		if err != nil && ctx.Err() == nil {
			t.log().Error("live updates: cannot read the table's stream", "err", err)
			t.setErr(fmt.Errorf("reading the table's stream: %w", err))
		} else if err == nil && !first && isReady(t.Ready()) {
			t.setErr(nil)
		}
		select {
		case <-ctx.Done():
			return
		case id := <-ended:
			if s := shards[id]; s != nil {
				s.done = true
			}
		case <-time.After(refresh):
		}
	}
}

// startShards reads the stream's shard list and starts a reader for each
// shard that is ready: open shards at the very start from LATEST (closed
// ones there hold only the past), later ones from TRIM_HORIZON once their
// parent is done.
func (t *Tailer) startShards(ctx context.Context, arn string, shards map[string]*shardState, atStart bool,
	poll time.Duration, ended chan<- string, wg, positioned *sync.WaitGroup) error {
	list, err := t.describe(ctx, arn)
	if err != nil {
		return err
	}
	for _, sh := range list {
		id := aws.ToString(sh.ShardId)
		if _, known := shards[id]; known {
			continue
		}
		closed := sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil
		shards[id] = &shardState{parent: aws.ToString(sh.ParentShardId), done: atStart && closed && !t.FromStart}
	}
	for id, s := range shards {
		if s.started || s.done {
			continue
		}
		if p, ok := shards[s.parent]; ok && !p.done {
			continue // its parent's records come first
		}
		from := types.ShardIteratorTypeTrimHorizon
		if atStart && !t.FromStart {
			from = types.ShardIteratorTypeLatest
		}
		s.started = true
		wg.Add(1)
		positioned.Add(1)
		go func() {
			defer wg.Done()
			t.readShard(ctx, arn, id, from, poll, sync.OnceFunc(positioned.Done))
			select {
			case ended <- id:
			case <-ctx.Done():
			}
		}()
	}
	return nil
}

// describe lists every shard of the stream, page by page.
func (t *Tailer) describe(ctx context.Context, arn string) ([]types.Shard, error) {
	var shards []types.Shard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: &arn}
	for {
		out, err := t.API.DescribeStream(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("describe stream: %w", err)
		}
		shards = append(shards, out.StreamDescription.Shards...)
		if out.StreamDescription.LastEvaluatedShardId == nil {
			return shards, nil
		}
		in.ExclusiveStartShardId = out.StreamDescription.LastEvaluatedShardId
	}
}

// readShard reads one shard until it ends (a closed shard read to its last
// record), the stream disappears, or ctx ends.
func (t *Tailer) readShard(ctx context.Context, arn, shardID string, from types.ShardIteratorType, poll time.Duration, positioned func()) {
	r := shardReader{API: t.API, log: t.log(), arn: arn, shard: shardID, from: from, backlogBefore: t.BacklogBefore,
		handle: func(ctx context.Context, recs []Record) error { t.Handle(ctx, recs); return nil }}
	if t.Start != nil {
		r.after = t.Start(ctx, arn, shardID)
	}
	r.run(ctx, poll, positioned)
}

// shardReader reads one shard in order, from a position, handing each batch
// of records to handle and then telling handled how far it got.
type shardReader struct {
	API   StreamsAPI
	log   *slog.Logger
	arn   string
	shard string
	// from is where a shard with no after starts; after is the sequence
	// number of the last record handled before ("": none).
	from  types.ShardIteratorType
	after string
	// backlogBefore is set on every record read (Record.BacklogBefore).
	backlogBefore time.Time
	// handle takes a batch; an error leaves it unhandled: it is read again
	// after a backoff.
	handle func(ctx context.Context, records []Record) error
	// handled, when set, learns the last record handled after each read
	// (and ended when the shard is read to its end); an error
	// stops the reader (the lease is lost).
	handled func(ctx context.Context, seq string, ended bool) error
}

// run reads the shard until it ends (a closed shard read to its last
// record), the stream disappears, handled refuses, or ctx ends.
func (r *shardReader) run(ctx context.Context, poll time.Duration, positioned func()) {
	defer positioned()
	var (
		iterator string
		lastSeq  = r.after // the last record handled: where a new iterator resumes
		from     = r.from
		backoff  time.Duration
	)
	for ctx.Err() == nil {
		if iterator == "" {
			in := &dynamodbstreams.GetShardIteratorInput{StreamArn: &r.arn, ShardId: &r.shard, ShardIteratorType: from}
			if lastSeq != "" {
				in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(lastSeq)
			}
			out, err := r.API.GetShardIterator(ctx, in)
			var trimmed *types.TrimmedDataAccessException
			if errors.As(err, &trimmed) && lastSeq != "" {
				// The checkpoint is past the stream's 24 hours: start from
				// the oldest record still there, as GetRecords does.
				r.log.Warn("live updates: the records after the checkpoint were trimmed before they were read", "shard", r.shard)
				lastSeq, from = "", types.ShardIteratorTypeTrimHorizon
				continue
			}
			if err != nil {
				if gone(r.log, err, r.shard) {
					return
				}
				backoff = wait(ctx, r.log, backoff, "get shard iterator", r.shard, err)
				continue
			}
			iterator = aws.ToString(out.ShardIterator)
			positioned()
			if iterator == "" {
				r.finish(ctx, lastSeq)
				return // nothing left in a closed shard
			}
		}
		out, err := r.API.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: &iterator, Limit: aws.Int32(getRecordsLimit)})
		var expired *types.ExpiredIteratorException
		var trimmed *types.TrimmedDataAccessException
		switch {
		case errors.As(err, &expired):
			iterator = "" // resume after the last record handled
			continue
		case errors.As(err, &trimmed):
			// The records after lastSeq are past the stream's 24 hours:
			// start again from the oldest still there.
			r.log.Warn("live updates: stream records were trimmed before they were read", "shard", r.shard)
			iterator, lastSeq, from = "", "", types.ShardIteratorTypeTrimHorizon
			continue
		case err != nil:
			if gone(r.log, err, r.shard) {
				return
			}
			backoff = wait(ctx, r.log, backoff, "get records", r.shard, err)
			iterator = "" // a failed read may have spent the iterator
			continue
		}
		if len(out.Records) > 0 {
			recs := make([]Record, 0, len(out.Records))
			for _, rec := range out.Records {
				if converted, ok := convert(r.log, rec, r.backlogBefore); ok {
					recs = append(recs, converted)
				}
			}
			if len(recs) > 0 {
				if err := r.handle(ctx, recs); err != nil {
					// Not handled: read again from the last record handled.
					backoff = wait(ctx, r.log, backoff, "handle records", r.shard, err)
					iterator = ""
					continue
				}
			}
			lastSeq = aws.ToString(out.Records[len(out.Records)-1].Dynamodb.SequenceNumber)
		}
		backoff = 0
		if out.NextShardIterator == nil {
			r.finish(ctx, lastSeq)
			return // the shard is closed and fully read
		}
		if r.handled != nil {
			// Also after an empty read: batches handled before may have
			// settled since.
			if err := r.handled(ctx, lastSeq, false); err != nil {
				return
			}
		}
		iterator = *out.NextShardIterator
		if len(out.Records) < getRecordsLimit {
			sleep(ctx, poll)
		}
	}
}

// finish tells handled that the shard is read to its end.
func (r *shardReader) finish(ctx context.Context, lastSeq string) {
	if r.handled != nil {
		_ = r.handled(ctx, lastSeq, true)
	}
}

// convert turns a stream record into a Record; ok is false for one that
// cannot be decoded (logged and skipped: it cannot be read later either).
func convert(log *slog.Logger, r types.Record, backlogBefore time.Time) (Record, bool) {
	if r.Dynamodb == nil {
		return Record{}, false
	}
	newImage, err1 := attributevalue.FromDynamoDBStreamsMap(r.Dynamodb.NewImage)
	oldImage, err2 := attributevalue.FromDynamoDBStreamsMap(r.Dynamodb.OldImage)
	if err := errors.Join(err1, err2); err != nil {
		log.Error("live updates: undecodable stream record", "seq", aws.ToString(r.Dynamodb.SequenceNumber), "err", err)
		return Record{}, false
	}
	return Record{NewImage: newImage, OldImage: oldImage, BacklogBefore: backlogBefore}, true
}

// gone reports whether err means the stream or shard no longer exists, in
// which case the reader stops and the next refresh finds what replaced it.
func gone(log *slog.Logger, err error, shardID string) bool {
	var notFound *types.ResourceNotFoundException
	if errors.As(err, &notFound) {
		log.Warn("live updates: stream or shard is gone", "shard", shardID, "err", err)
		return true
	}
	return false
}

// wait sleeps after a failed read, twice as long as the last time up to
// maxBackoff, and returns the new wait.
func wait(ctx context.Context, log *slog.Logger, last time.Duration, what, shardID string, err error) time.Duration {
	next := min(max(2*last, 100*time.Millisecond), maxBackoff)
	var throttled *types.LimitExceededException
	if !errors.As(err, &throttled) && ctx.Err() == nil {
		log.Warn("live updates: reading the stream failed; retrying", "op", what, "shard", shardID, "in", next, "err", err)
	}
	sleep(ctx, next)
	return next
}

func (t *Tailer) log() *slog.Logger {
	if t.Log == nil {
		return slog.Default()
	}
	return t.Log
}

func isReady(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func sleep(ctx context.Context, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}
