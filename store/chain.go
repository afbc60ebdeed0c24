package store

import (
	"context"
	"fmt"
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
// Writes to one group are serialized through the ledger item anyway; a
// writer that loses the race reads the head again and retries.

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

// chainAttempts bounds how often a write reads the head again after others
// took the chain's next place first; chainBackoff is the first wait.
const (
	chainAttempts = 30
	chainBackoff  = 5 * time.Millisecond
)

// errChainBusy is what a write gets when it lost the race for the chain's
// next place every time.
var errChainBusy = fmt.Errorf("%w: the group is too busy to record this right now; retry", ErrConflict)

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
// condition that it is still at prev.
func (l *ledgerEdit) appendTo(prev chainHead, ev *Event) {
	l.set = append(l.set, attrEvents+" = "+l.value(number(ev.Seq)), attrHead+" = "+l.value(str(ev.Hash)))
	if prev.Seq == 0 {
		l.conds = append(l.conds, attrNotExists(attrEvents))
	} else {
		l.conds = append(l.conds, attrEvents+" = "+l.value(number(prev.Seq)))
	}
}

// writeWithEvent writes, in one transaction, the group's ledger edit (at
// index 0), the items build returns (from index 1) and the event ev, sealed
// into the chain after its current head. build gets the ledger edit to add
// its own conditions and changes; it may be called again, when another
// write took the chain's next place first and the head is read again.
// Any other failure is returned as it is, for the caller to explain by
// index. ev's number and hashes are set when it returns.
func (s *Store) writeWithEvent(ctx context.Context, ev *Event, build func(l *ledgerEdit) ([]types.TransactWriteItem, error)) error {
	return retry(ctx, chainAttempts, chainBackoff, func() (bool, error) {
		head, err := s.readHead(ctx, ev.GroupID)
		if err != nil {
			return true, err
		}
		ev.seal(head)
		l := newLedgerEdit(ev.GroupID)
		l.appendTo(head, ev)
		items, err := build(l)
		if err != nil {
			return true, err
		}
		put, err := s.putNew(ev.record(), "event")
		if err != nil {
			return true, err
		}
		all := make([]types.TransactWriteItem, 0, len(items)+2)
		all = append(append(append(all, l.item(&s.table)), items...), put)
		err = s.transactWrite(ctx, all)
		if headMoved(err, head, len(all)-1) {
			return false, errChainBusy
		}
		return true, err
	})
}

// headMoved reports whether a transaction of writeWithEvent failed because
// the chain no longer ended at head: the event's place was taken, or the
// ledger's condition failed with the ledger showing another head.
func headMoved(err error, head chainHead, eventAt int) bool {
	if condFailedAt(err, eventAt) {
		return true
	}
	if !condFailedAt(err, 0) {
		return false
	}
	old := oldItemAt(err, 0)
	if old == nil {
		return false
	}
	now, decodeErr := headOf(old)
	return decodeErr == nil && now.Seq != head.Seq
}
