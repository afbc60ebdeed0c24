package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Resealing brings a group's activity log from hash format 1 (names and
// wallets hashed as they are) to format 2 (personal values outside the
// hash, personal.go), so that an erasure can take them out and the chain
// still verifies. Event by event, oldest first: a format-1 event gets its
// personal fields' values moved into salted slots (sealLegacy), format 2 and
// a new hash over the new hash of the event before it; a format-2 event that
// followed a resealed one is linked again (its prevHash, then its hash).
//
// A log may be longer than a transaction, so a reseal goes in batches, each
// one transaction: the batch's events, on condition that each is as it was
// read, and the ledger, which records how far the reseal has come
// (resealedTo) and the hash the next event's prevHash still names
// (resealLink), so that an interrupted reseal continues where it stopped and
// `verify` accepts that one seam meanwhile. The last batch moves the head
// on condition that no event came after it (otherwise the reseal goes on
// with the newcomers). Then a CHAIN_RESEALED event, appended as any write
// appends, attests the head the log had in format 1 (resealFrom,
// "<events>:<hash>"), so that whoever kept that head can see the new chain
// continues the one they knew. Writes meanwhile need nothing: the head they
// remember is caught by its hash (chain.go's appendTo).

// resealBatch is how many events one transaction of a reseal rewrites.
const resealBatch = 50

// resealAttempts bounds how often a reseal starts again after a write
// changed the log under it.
const resealAttempts = 20

// errResealMoved: a batch's conditions failed, a write landed meanwhile.
var errResealMoved = errors.New("activity log changed during reseal")

// Attributes a reseal and an erasure name on events and on the ledger.
const (
	attrHash       = "hash"
	attrRedactions = "redactions" // how often an erasure rewrote the event's slots
	attrResealFrom = "resealFrom"
	attrResealedTo = "resealedTo"
	attrResealLink = "resealLink"
)

// FieldLegacyHead is the change of a CHAIN_RESEALED event: the head the
// log had in format 1, "<events>:<hash>".
const FieldLegacyHead = "legacyHead"

// ResealChain reseals the group's activity log in hash format 2 where it is
// not yet (see above) and reports how many events it rewrote: none for a
// log that is all format 2 already (one read of its first event).
func (s *Store) ResealChain(ctx context.Context, groupID string) (int, error) {
	total := 0
	for range resealAttempts {
		n, err := s.resealOnce(ctx, groupID)
		total += n
		if errors.Is(err, errResealMoved) {
			continue
		}
		if err != nil {
			return total, err
		}
		return total, s.attestReseal(ctx, groupID)
	}
	return total, errChainBusy
}

// readLedger reads the group's ledger strongly; ok is false without one.
func (s *Store) readLedger(ctx context.Context, groupID string) (ledgerRecord, bool, error) {
	item, ok, err := s.getItem(ctx, groupPK(groupID), skLedger, true)
	if err != nil || !ok {
		return ledgerRecord{}, false, err
	}
	var rec ledgerRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return ledgerRecord{}, false, fmt.Errorf("decode ledger: %w", err)
	}
	return rec, true, nil
}

// resealOnce reseals from where the ledger says the reseal stands to the
// head, batch by batch.
func (s *Store) resealOnce(ctx context.Context, groupID string) (int, error) {
	l, ok, err := s.readLedger(ctx, groupID)
	if err != nil || !ok || l.Events == 0 {
		return 0, err
	}
	done := l.ResealedTo
	prev := ""
	var start map[string]types.AttributeValue
	if done > 0 {
		item, ok, err := s.getItem(ctx, groupPK(groupID), eventSK(done), true)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("group %s: reseal stands at event %d, which is missing", groupID, done)
		}
		prev = keyAttr(item, attrHash)
		start = tableKey(groupPK(groupID), eventSK(done))
	}
	from := l.ResealFrom
	if from == "" {
		from = strconv.FormatInt(l.Events, 10) + ":" + l.Head
	}
	q := listQuery{
		list: "reseal:" + groupID, keyCond: tablePrefixCond, values: prefixValues(groupPK(groupID), eventSK(0)),
		forward: true, consistent: true,
	}
	wrote := 0
	for {
		items, err := s.collect(ctx, q, start, resealBatch)
		if err != nil {
			return wrote, err
		}
		if len(items) == 0 {
			return wrote, nil
		}
		var puts []types.TransactWriteItem
		var last eventRecord
		for _, item := range items {
			var r eventRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return wrote, fmt.Errorf("decode event %s: %w", keyAttr(item, attrSK), err)
			}
			if r.hashFormat() >= hashFormat2 && r.PrevHash == prev {
				if wrote == 0 && done == 0 && len(puts) == 0 {
					return 0, nil // nothing was ever format 1 here
				}
				return wrote, fmt.Errorf("group %s: event %d is linked already while its predecessor was resealed", groupID, r.Seq)
			}
			put, next, err := s.resealed(item, r, prev)
			if err != nil {
				return wrote, err
			}
			puts = append(puts, put)
			prev, last = next.Hash, r
		}
		head := last.Seq >= l.Events
		if err := s.transactWrite(ctx, append(puts, s.resealProgress(groupID, done, last, prev, from, head))); err != nil {
			if IsCondCheckFailed(err) {
				return wrote, errResealMoved
			}
			return wrote, fmt.Errorf("reseal group %s: %w", groupID, err)
		}
		wrote += len(puts)
		if head {
			return wrote, nil
		}
		done = last.Seq
		start = tableKey(groupPK(groupID), eventSK(done))
	}
}

// resealed is the put of event r resealed after an event whose hash is
// prev, on condition that it is still as it was read.
func (s *Store) resealed(item map[string]types.AttributeValue, r eventRecord, prev string) (types.TransactWriteItem, eventRecord, error) {
	next := r
	if r.hashFormat() < hashFormat2 {
		next.Changes, next.Slots = sealLegacy(r.Changes, nil)
		next.HashFormat = hashFormat2
	}
	next.PrevHash = prev
	next.Hash = next.computeHash()
	av, err := attributevalue.MarshalMap(next)
	if err != nil {
		return types.TransactWriteItem{}, next, fmt.Errorf("encode event: %w", err)
	}
	if n, ok := item[attrRedactions]; ok {
		av[attrRedactions] = n
	}
	cond := "#h = :h AND " + attrNotExists(attrRedactions)
	values := map[string]types.AttributeValue{":h": str(r.Hash)}
	if n, ok := item[attrRedactions]; ok {
		cond = "#h = :h AND " + attrRedactions + " = :r"
		values[":r"] = n
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: av, ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: map[string]string{"#h": attrHash}, ExpressionAttributeValues: values,
	}}, next, nil
}

// resealProgress is the ledger's part of a batch that resealed up to event
// last (whose new hash is newHash), from where the reseal stood (done):
// the seam moved on, or, when last is the head, the head itself.
func (s *Store) resealProgress(groupID string, done int64, last eventRecord, newHash, from string, head bool) types.TransactWriteItem {
	values := map[string]types.AttributeValue{":from": str(from), ":seq": number(last.Seq)}
	cond := condItemExists
	if done == 0 {
		cond += " AND " + attrNotExists(attrResealedTo)
	} else {
		cond += " AND " + attrResealedTo + " = :done"
		values[":done"] = number(done)
	}
	var update string
	if head {
		update = "SET " + attrHead + " = :new, " + setIfMissing(attrResealFrom, ":from") + " REMOVE " + attrResealedTo + ", " + attrResealLink
		cond += " AND " + attrEvents + " = :seq AND " + attrHead + " = :old"
		values[":new"], values[":old"] = str(newHash), str(last.Hash)
	} else {
		update = "SET " + attrResealedTo + " = :seq, " + attrResealLink + " = :link, " + setIfMissing(attrResealFrom, ":from")
		cond += " AND " + attrEvents + " > :seq"
		values[":link"] = str(last.Hash)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(groupID), skLedger),
		UpdateExpression: aws.String(update), ConditionExpression: aws.String(cond),
		ExpressionAttributeValues: values,
	}}
}

// attestReseal appends the CHAIN_RESEALED event of a finished reseal, once:
// on condition that the ledger still holds resealFrom, which it removes.
func (s *Store) attestReseal(ctx context.Context, groupID string) error {
	l, ok, err := s.readLedger(ctx, groupID)
	if err != nil || !ok || l.ResealFrom == "" || l.ResealedTo != 0 {
		return err
	}
	// The group's creator is its actor: an event's actor is always a member
	// the group shows (the reseal is the operator's, who is none).
	first, _, err := s.getItem(ctx, groupPK(groupID), eventSK(1), true)
	if err != nil {
		return err
	}
	ev := Event{
		GroupID: groupID, Type: EventChainResealed, ActorID: keyAttr(first, "actorId"), At: s.stamp(),
		Subject: Subject{Kind: SubjectGroup, ID: groupID},
		Changes: []Change{{Field: FieldLegacyHead, After: text(l.ResealFrom)}},
	}
	err = s.writeWithEvent(ctx, &ev, func(e *ledgerEdit) ([]types.TransactWriteItem, error) {
		e.writesArchived() // a change of format, not of the group: any group is resealed
		e.writesDeleted()
		e.conds = append(e.conds, attrResealFrom+" = "+e.value(str(l.ResealFrom)), attrNotExists(attrResealedTo))
		e.remove = append(e.remove, attrResealFrom)
		return nil, nil
	})
	if condFailedAt(err, 0) {
		return nil // attested by another run meanwhile
	}
	return err
}
