package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// VerifyChain checks a group's activity log against itself and against the
// head its ledger keeps: events numbered 1, 2, 3… without gap, each one's
// hash recomputed from its stored content and the previous event's hash,
// each one's prevHash equal to that hash, and the ledger's head (events and
// head) on the last of them. It returns the first broken link in words, or
// "" when the chain holds. The head is read first, so writes landing
// meanwhile only add events after it; when the log runs past that head, the
// head is read again and must have caught up. A group written before
// activity existed has neither events nor head, and is fine.
//
// Each event is hashed in its own format (event.go): a log may hold format-1
// events until the migration reseals it (reseal_chain.go). While a reseal
// is under way, the one seam it leaves (the first event not yet resealed
// names the old hash of the last one resealed) is accepted where the ledger
// says it is; a walk that crossed a reseal moving meanwhile is done again.
func (s *Store) VerifyChain(ctx context.Context, groupID string) (string, error) {
	for attempt := 0; ; attempt++ {
		problem, resealing, err := s.verifyChain(ctx, groupID)
		if err != nil || problem == "" || !resealing || attempt == 2 {
			return problem, err
		}
	}
}

// verifyChain walks the log once; resealing reports a reseal under way
// (the walk may have crossed its progress).
func (s *Store) verifyChain(ctx context.Context, groupID string) (string, bool, error) {
	l, _, err := s.readLedger(ctx, groupID)
	if err != nil {
		return "", false, err
	}
	head := chainHead{Seq: l.Events, Hash: l.Head}
	resealing := l.ResealedTo > 0
	problem, err := s.walkChain(ctx, groupID, l, head)
	if problem != "" && !resealing {
		if now, _, err := s.readLedger(ctx, groupID); err == nil {
			resealing = now.ResealedTo > 0 || now.ResealFrom != l.ResealFrom || now.Head != l.Head
		}
	}
	return problem, resealing, err
}

// walkChain checks the log against the ledger l read before it.
func (s *Store) walkChain(ctx context.Context, groupID string, l ledgerRecord, head chainHead) (string, error) {
	q := listQuery{
		list: "events:" + groupID, keyCond: tablePrefixCond, values: prefixValues(groupPK(groupID), eventSK(0)),
		keys: tableKeys, forward: true, consistent: true,
	}
	prev := ""
	var seq int64
	for start := ""; ; {
		items, cursors, more, err := s.query(ctx, q, PageArgs{First: MaxPageSize, After: start})
		if err != nil {
			return "", err
		}
		for _, item := range items {
			var r eventRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return fmt.Sprintf("activity item %s cannot be read: %v", keyAttr(item, attrSK), err), nil
			}
			seq++
			switch {
			case r.SK != eventSK(seq) || r.Seq != seq:
				return fmt.Sprintf("activity: event %d is missing (found %s, numbered %d, in its place)", seq, r.SK, r.Seq), nil
			case r.PrevHash != prev && (l.ResealedTo == 0 || l.ResealedTo != seq-1 || r.PrevHash != l.ResealLink):
				return fmt.Sprintf("activity event %d: its previous hash does not match event %d's hash", seq, seq-1), nil
			case r.computeHash() != r.Hash:
				return fmt.Sprintf("activity event %d: its hash does not match its content (changed after it was written)", seq), nil
			case seq == head.Seq && r.Hash != head.Hash:
				return fmt.Sprintf("activity: the ledger's head is not the hash of event %d", seq), nil
			}
			prev = r.Hash
		}
		if !more {
			break
		}
		start = cursors[len(cursors)-1].String()
	}
	if seq < head.Seq {
		return fmt.Sprintf("activity: the ledger's head says %d events, the log holds %d", head.Seq, seq), nil
	}
	if seq > head.Seq {
		// Events past the head read first are writes that landed during the
		// walk, or events the ledger never took in (appended by hand, or a
		// head rewound or removed): by now the head must have reached them.
		now, err := s.readHead(ctx, groupID)
		if err != nil {
			return "", err
		}
		switch {
		case now.Seq < seq:
			return fmt.Sprintf("activity: the ledger's head says %d events, the log holds %d", now.Seq, seq), nil
		case now.Seq == seq && now.Hash != prev:
			return fmt.Sprintf("activity: the ledger's head is not the hash of event %d", seq), nil
		}
	}
	return "", nil
}
