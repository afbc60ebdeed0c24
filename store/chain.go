package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Every write to a group appends one event to the group's activity log in
// the same transaction, and the log is a hash chain: the ledger item keeps
// the number and hash of the newest event (the head), and the transaction
// moves the head on condition that it is still where the writer read it.
// Writes to one group are serialized through the ledger item anyway: within
// a process they take turns (chainTurns), and a writer that loses the race
// to another process learns the new head from the refusal and tries again.

// Attributes of the ledger item that hold the chain's head.
const (
	attrEvents = "events" // the number of the newest event: how many there are
	attrHead   = "head"   // the hash of the newest event
)

// chainHead is where a group's chain ends: the newest event's number and hash.
type chainHead struct {
	Seq  int64
	Hash string
}

// chainAttempts bounds how often a write tries again after a write from
// another process took the chain's next place first. Each lost attempt means
// another write landed, so the group as a whole always makes progress; a
// loser learns the new head from the refusal itself and tries again after a
// short random pause (full jitter, growing from chainBackoff to
// chainMaxBackoff), so that writers that collided once do not keep colliding.
const (
	chainAttempts   = 100
	chainBackoff    = time.Millisecond
	chainMaxBackoff = 8 * time.Millisecond
)

// errChainBusy is what a write gets when it lost the race for the chain's
// next place every time.
var errChainBusy = fmt.Errorf("%w: the group is too busy to record this right now; retry", ErrConflict)

// chainTurns makes the writes to one group from this process take turns, so
// that they never race each other for the chain's next place (a lost race
// costs a whole cancelled transaction), and remembers each group's head, so
// that a write needs no read first. Only writes from other processes can
// then move a head behind our back, and the ledger's condition catches those.
// Groups share a fixed number of turns by hash, which bounds the memory.
type chainTurns struct {
	shards [chainShards]chainShard
}

const (
	chainShards     = 256
	chainShardHeads = 64 // heads remembered per shard before it forgets them all
)

type chainShard struct {
	turn  chan struct{}        // holding its one slot is holding the turn
	heads map[string]chainHead // guarded by the turn
}

func newChainTurns() *chainTurns {
	c := &chainTurns{}
	for i := range c.shards {
		c.shards[i] = chainShard{turn: make(chan struct{}, 1), heads: map[string]chainHead{}}
	}
	return c
}

// take waits for the group's turn, or for ctx to end.
func (c *chainTurns) take(ctx context.Context, groupID string) (*chainShard, error) {
	h := fnv.New32a()
	h.Write([]byte(groupID))
	sh := &c.shards[h.Sum32()%chainShards]
	select {
	case sh.turn <- struct{}{}:
		return sh, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (sh *chainShard) release() { <-sh.turn }

// remember keeps a group's head after a write; forget drops it when the
// outcome of a write is unknown.
func (sh *chainShard) remember(groupID string, head chainHead) {
	if len(sh.heads) >= chainShardHeads {
		clear(sh.heads)
	}
	sh.heads[groupID] = head
}

func (sh *chainShard) forget(groupID string) { delete(sh.heads, groupID) }

// headProjection reads only the head of a ledger item.
var headProjection = attrEvents + ", " + attrHead

// readHead reads the group's chain head, strongly consistent; a group
// without a ledger (or without events yet) has the empty head.
func (s *Store) readHead(ctx context.Context, groupID string) (chainHead, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:            &s.table,
		Key:                  tableKey(groupPK(groupID), skLedger),
		ConsistentRead:       aws.Bool(true),
		ProjectionExpression: aws.String(headProjection),
	})
	if err != nil {
		return chainHead{}, fmt.Errorf("read activity head: %w", err)
	}
	return headOf(out.Item)
}

func headOf(item map[string]types.AttributeValue) (chainHead, error) {
	var rec ledgerRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return chainHead{}, fmt.Errorf("decode ledger: %w", err)
	}
	return chainHead{Seq: rec.Events, Hash: rec.Head}, nil
}

// appendTo makes the ledger edit move the head from prev to ev, on
// condition that it is still at prev: its number and its hash, which a
// reseal (reseal_chain.go) changes without adding an event, so that a head
// remembered from before it is caught.
func (l *ledgerEdit) appendTo(prev chainHead, ev *Event) {
	l.set = append(l.set, attrEvents+" = "+l.value(number(ev.Seq)), attrHead+" = "+l.value(str(ev.Hash)))
	if prev.Seq == 0 {
		l.conds = append(l.conds, attrNotExists(attrEvents))
	} else {
		l.conds = append(l.conds, attrEvents+" = "+l.value(number(prev.Seq)), attrHead+" = "+l.value(str(prev.Hash)))
	}
}

// writeWithEvent writes, in one transaction, the group's ledger edit (at
// index 0), the items build returns (from index 1) and the event ev, sealed
// into the chain after its current head. build gets the ledger edit to add
// its own conditions and changes; it is called again when a write from
// another process took the chain's next place first. A group closed to the
// write (archived or deleted, see ledgerEdit) is refused here, for every
// caller alike: ErrArchived or ErrNotFound. Any other failure is returned
// as it is, for the caller to explain by index. ev's number and hashes are
// set when it returns.
func (s *Store) writeWithEvent(ctx context.Context, ev *Event, build func(l *ledgerEdit) ([]types.TransactWriteItem, error)) error {
	sh, err := s.turns.take(ctx, ev.GroupID)
	if err != nil {
		return err
	}
	defer sh.release()
	head, known := sh.heads[ev.GroupID]
	if !known {
		if head, err = s.readHead(ctx, ev.GroupID); err != nil {
			return err
		}
	}
	backoff := chainBackoff
	for range chainAttempts {
		ev.seal(head)
		l := newLedgerEdit(ev.GroupID)
		l.appendTo(head, ev)
		items, err := build(l)
		if err != nil {
			return err
		}
		put, err := s.putNew(ev.record(), "event")
		if err != nil {
			return err
		}
		all := make([]types.TransactWriteItem, 0, len(items)+2)
		all = append(append(append(all, l.item(&s.table)), items...), put)
		err = s.transactWrite(ctx, all)
		if err == nil {
			sh.remember(ev.GroupID, chainHead{Seq: ev.Seq, Hash: ev.Hash})
			s.tellCommitted(*ev)
			return nil
		}
		if closed := l.closedRefusal(err, 0); closed != nil {
			sh.forget(ev.GroupID)
			return closed
		}
		moved, now := headMoved(err, head, len(all)-1)
		switch {
		case !moved:
			sh.forget(ev.GroupID)
			return err
		case now != nil:
			head = *now
		default:
			if head, err = s.readHead(ctx, ev.GroupID); err != nil {
				sh.forget(ev.GroupID)
				return err
			}
		}
		if err := sleep(ctx, rand.N(backoff)); err != nil {
			sh.forget(ev.GroupID)
			return err
		}
		backoff = min(2*backoff, chainMaxBackoff)
	}
	sh.forget(ev.GroupID)
	return errChainBusy
}

// headMoved reports whether a transaction of writeWithEvent failed because
// the chain no longer ended at head, and where it ends now when the refusal
// says so: the ledger's condition failed with the ledger showing another
// head, or the event's place was taken.
func headMoved(err error, head chainHead, eventAt int) (bool, *chainHead) {
	if condFailedAt(err, 0) {
		if old := oldItemAt(err, 0); old != nil {
			now, decodeErr := headOf(old)
			if decodeErr == nil && now != head {
				return true, &now
			}
		}
	}
	return condFailedAt(err, eventAt), nil
}
