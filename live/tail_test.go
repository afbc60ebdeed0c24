package live

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/require"
)

// fakeStream is a DynamoDB Stream in memory, for what DynamoDB Local does
// not do on demand: shard splits, expired iterators, trimmed records and
// throttling. Records carry their number in the "n" attribute.
type fakeStream struct {
	mu     sync.Mutex
	shards []*fakeShard
	seq    int
	// expireNext makes the next GetRecords fail with ExpiredIteratorException
	// (once per count), throttleNext with LimitExceededException.
	expireNext, throttleNext, trimNext int
	calls                              map[string]int
}

type fakeShard struct {
	arn, id, parent string
	records         []types.Record
	closed          bool
	trimmed         int // records before this index are gone
}

func newFakeStream() *fakeStream { return &fakeStream{calls: map[string]int{}} }

func (f *fakeStream) addShard(id, parent string) { f.addShardIn("arn:fake", id, parent) }

// addShardIn adds a shard to the stream with the ARN (a table's streams
// differ by ARN).
func (f *fakeStream) addShardIn(arn, id, parent string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shards = append(f.shards, &fakeShard{arn: arn, id: id, parent: parent})
}

func (f *fakeStream) shard(id string) *fakeShard {
	for _, s := range f.shards {
		if s.id == id {
			return s
		}
	}
	return nil
}

// put appends record number n to the shard.
func (f *fakeStream) put(shardID string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	sh := f.shard(shardID)
	sh.records = append(sh.records, types.Record{Dynamodb: &types.StreamRecord{
		SequenceNumber: aws.String(fmt.Sprintf("%020d", f.seq)),
		NewImage:       map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: strconv.Itoa(n)}},
	}})
}

func (f *fakeStream) close(shardID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shard(shardID).closed = true
}

func (f *fakeStream) DescribeStream(_ context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["DescribeStream"]++
	var out []types.Shard
	for _, s := range f.shards {
		if s.arn != *in.StreamArn {
			continue
		}
		r := &types.SequenceNumberRange{StartingSequenceNumber: aws.String("0")}
		if s.closed {
			r.EndingSequenceNumber = aws.String("99999999999999999999")
		}
		sh := types.Shard{ShardId: aws.String(s.id), SequenceNumberRange: r}
		if s.parent != "" {
			sh.ParentShardId = aws.String(s.parent)
		}
		out = append(out, sh)
	}
	// Two shards per page, to exercise paging.
	start := 0
	if in.ExclusiveStartShardId != nil {
		for i, s := range out {
			if *s.ShardId == *in.ExclusiveStartShardId {
				start = i + 1
			}
		}
	}
	end := min(start+2, len(out))
	desc := &types.StreamDescription{Shards: out[start:end]}
	if end < len(out) {
		desc.LastEvaluatedShardId = out[end-1].ShardId
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: desc}, nil
}

// Iterators are "<shard>/<next index>".
func (f *fakeStream) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["GetShardIterator"]++
	sh := f.shard(*in.ShardId)
	pos := 0
	switch in.ShardIteratorType {
	case types.ShardIteratorTypeLatest:
		pos = len(sh.records)
	case types.ShardIteratorTypeTrimHorizon:
		pos = sh.trimmed
	case types.ShardIteratorTypeAfterSequenceNumber:
		for i, r := range sh.records {
			if *r.Dynamodb.SequenceNumber == *in.SequenceNumber {
				pos = i + 1
			}
		}
		if pos <= sh.trimmed {
			// As DynamoDB Streams: the position is past the 24 hours.
			return nil, &types.TrimmedDataAccessException{Message: aws.String("trimmed")}
		}
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(fmt.Sprintf("%s/%d", sh.id, pos))}, nil
}

func (f *fakeStream) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["GetRecords"]++
	id, p, _ := strings.Cut(*in.ShardIterator, "/")
	pos, _ := strconv.Atoi(p)
	sh := f.shard(id)
	switch {
	case f.expireNext > 0 && pos < len(sh.records):
		f.expireNext--
		return nil, &types.ExpiredIteratorException{Message: aws.String("expired")}
	case f.throttleNext > 0:
		f.throttleNext--
		return nil, &types.LimitExceededException{Message: aws.String("slow down")}
	case f.trimNext > 0 && pos < len(sh.records):
		f.trimNext--
		sh.trimmed = pos + 1 // the record at pos is lost
		return nil, &types.TrimmedDataAccessException{Message: aws.String("trimmed")}
	}
	end := min(len(sh.records), pos+int(aws.ToInt32(in.Limit)))
	out := &dynamodbstreams.GetRecordsOutput{Records: sh.records[pos:end]}
	if !sh.closed || end < len(sh.records) {
		out.NextShardIterator = aws.String(fmt.Sprintf("%s/%d", id, end))
	}
	return out, nil
}

// collector gathers the record numbers the tailer hands over.
type collector struct {
	mu      sync.Mutex
	seen    []int
	backlog []time.Time // each record's BacklogBefore
}

func (c *collector) handle(_ context.Context, recs []Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range recs {
		n, _ := strconv.Atoi(r.NewImage["n"].(*ddbtypes.AttributeValueMemberN).Value)
		c.seen = append(c.seen, n)
		c.backlog = append(c.backlog, r.BacklogBefore)
	}
}

func (c *collector) numbers() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.seen...)
}

// tail runs a tailer over f until the test ends and waits until it is positioned.
func tail(t *testing.T, f *fakeStream) *collector { return tailWith(t, f, false) }

// tailWith is tail with the tailer's FromStart.
func tailWith(t *testing.T, f *fakeStream, fromStart bool) *collector {
	t.Helper()
	c := &collector{}
	tl := &Tailer{API: f, StreamARN: func(context.Context) (string, error) { return "arn:fake", nil },
		Handle: c.handle, Poll: time.Millisecond, Refresh: 20 * time.Millisecond, FromStart: fromStart}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tl.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-tl.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("tailer not ready")
	}
	require.NoError(t, tl.Err())
	return c
}

func eventually(t *testing.T, c *collector, want []int) {
	t.Helper()
	require.Eventually(t, func() bool { return len(c.numbers()) >= len(want) }, 5*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // nothing more (no repeats) arrives
	require.Equal(t, want, c.numbers())
}

func TestTailerStartsAtTheLatestPosition(t *testing.T) {
	f := newFakeStream()
	f.addShard("old", "")
	f.put("old", 1)
	f.close("old") // a closed shard at the start holds only the past
	f.addShard("a", "old")
	f.put("a", 2) // written before the tailer started
	c := tail(t, f)
	f.put("a", 3)
	f.put("a", 4)
	eventually(t, c, []int{3, 4})
}

// A consumer that must survive a restart (the notifier) reads what the
// stream still holds, the closed parent first.
func TestTailerFromStartReadsTheStreamsPast(t *testing.T) {
	f := newFakeStream()
	f.addShard("old", "")
	f.put("old", 1)
	f.close("old")
	f.addShard("a", "old")
	f.put("a", 2)
	c := tailWith(t, f, true)
	f.put("a", 3)
	eventually(t, c, []int{1, 2, 3})
}

func TestTailerReadsASplitParentBeforeItsChildren(t *testing.T) {
	f := newFakeStream()
	f.addShard("p", "")
	c := tail(t, f)
	f.put("p", 1)
	// The shard splits: the parent closes with a record still unread, and
	// its children start filling at once.
	f.put("p", 2)
	f.close("p")
	f.addShard("c1", "p")
	f.addShard("c2", "p")
	f.put("c1", 3)
	f.put("c2", 4)
	f.put("c1", 5)
	require.Eventually(t, func() bool { return len(c.numbers()) == 5 }, 5*time.Second, time.Millisecond)
	got := c.numbers()
	require.Equal(t, []int{1, 2}, got[:2], "every parent record before any child's")
	require.ElementsMatch(t, []int{3, 4, 5}, got[2:])
	require.Less(t, indexOf(got, 3), indexOf(got, 5), "a child's records in order")
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestTailerResumesAfterAnExpiredIteratorWithoutLossOrRepeat(t *testing.T) {
	f := newFakeStream()
	f.addShard("a", "")
	c := tail(t, f)
	f.put("a", 1)
	eventually(t, c, []int{1})
	f.mu.Lock()
	f.expireNext, f.throttleNext = 2, 3
	f.mu.Unlock()
	f.put("a", 2)
	f.put("a", 3)
	eventually(t, c, []int{1, 2, 3})
}

// TestTailerStartsFromTheOldestRecordWhenItsCheckpointIsTrimmed: a start
// position (a lease's checkpoint) past the stream's 24 hours reads from the
// trim horizon instead of asking for an iterator there forever.
func TestTailerStartsFromTheOldestRecordWhenItsCheckpointIsTrimmed(t *testing.T) {
	f := newFakeStream()
	f.addShard("a", "")
	f.put("a", 1)
	f.put("a", 2)
	f.put("a", 3)
	f.mu.Lock()
	f.shard("a").trimmed = 2
	f.mu.Unlock()
	c := &collector{}
	tl := &Tailer{API: f, StreamARN: func(context.Context) (string, error) { return "arn:fake", nil },
		Handle: c.handle, Poll: time.Millisecond, FromStart: true,
		Start: func(context.Context, string, string) string { return fmt.Sprintf("%020d", 1) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tl.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, c, []int{3})
}

func TestTailerRestartsFromTheOldestRecordWhenTrimmed(t *testing.T) {
	f := newFakeStream()
	f.addShard("a", "")
	c := tail(t, f)
	f.mu.Lock()
	f.trimNext = 1
	f.mu.Unlock()
	f.put("a", 1) // lost to the trim
	f.put("a", 2)
	eventually(t, c, []int{2})
}

func TestTailerFollowsANewStream(t *testing.T) {
	f := newFakeStream()
	f.addShardIn("arn:1", "a", "")
	arn := "arn:1"
	var mu sync.Mutex
	c := &collector{}
	tl := &Tailer{API: f, Handle: c.handle, Poll: time.Millisecond, Refresh: 10 * time.Millisecond,
		StreamARN: func(context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			return arn, nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tl.Run(ctx)
	<-tl.Ready()
	f.put("a", 1)
	eventually(t, c, []int{1})
	// The stream is disabled and enabled again: a new ARN whose shard is
	// read from its start, since everything in it is new.
	f.close("a")
	f.addShardIn("arn:2", "b", "")
	f.put("b", 2)
	mu.Lock()
	arn = "arn:2"
	mu.Unlock()
	eventually(t, c, []int{1, 2})
}
