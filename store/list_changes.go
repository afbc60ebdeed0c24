package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrSyncTokenExpired means a sync token is older than the sync retention:
// the client should reload instead of catching up.
var ErrSyncTokenExpired = errors.New("sync token expired")

// DefaultSyncRetention is how long a sync token stays usable by default.
const DefaultSyncRetention = 30 * 24 * time.Hour

// Changes is a page of a group's activity events after a sync token, oldest
// first, and the token that follows its last event.
type Changes struct {
	Events []Event
	// Token is the position after the last event: since itself when there
	// are none (the schema promises the same token again).
	Token string
	// HasMore says another page follows: call again with Token.
	HasMore bool
}

// syncList is the identity a group's sync tokens are bound to.
func syncList(groupID string) string { return "changes:" + groupID }

// SyncToken is the opaque, signed position just after the group's event
// number seq (0: before the first). It records when it was issued, which is
// what the sync retention is measured from.
func (s *Store) SyncToken(groupID string, seq int64) string {
	return s.cursors.encode(syncList(groupID), map[string]string{
		"seq": strconv.FormatInt(seq, 10),
		"iat": strconv.FormatInt(s.now().Unix(), 10),
	})
}

// syncPosition decodes a sync token of the group into the event number it
// follows; "" is the start of the log.
func (s *Store) syncPosition(groupID, token string) (int64, error) {
	if token == "" {
		return 0, nil
	}
	keys, err := s.cursors.decode(syncList(groupID), token, 1)
	if err != nil {
		return 0, err
	}
	seq, err1 := strconv.ParseInt(keys[0]["seq"], 10, 64)
	iat, err2 := strconv.ParseInt(keys[0]["iat"], 10, 64)
	if err1 != nil || err2 != nil || seq < 0 {
		return 0, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	if age := s.now().Sub(time.Unix(iat, 0)); age > s.syncRetention {
		return 0, fmt.Errorf("%w: it was issued %s ago and tokens are kept for %s; reload the group",
			ErrSyncTokenExpired, age.Truncate(time.Hour), s.syncRetention)
	}
	return seq, nil
}

// ListChanges returns up to first (1 to MaxPageSize) of the group's activity events that follow
// the sync token since ("" for the start of the log), oldest first and
// strongly consistent, so that a client that wrote a moment ago sees its
// own write. The events follow each other without a gap.
func (s *Store) ListChanges(ctx context.Context, groupID, since string, first int) (Changes, error) {
	after, err := s.syncPosition(groupID, since)
	if err != nil {
		return Changes{}, err
	}
	first = min(max(first, 1), MaxPageSize)
	q := listQuery{list: syncList(groupID), keyCond: tablePrefixCond, values: prefixValues(groupPK(groupID), prefixEvent),
		forward: true, consistent: true}
	start := tableKey(groupPK(groupID), eventSK(after))
	if after == 0 {
		start = nil
	}
	items, err := s.collect(ctx, q, start, first+1)
	if err != nil {
		return Changes{}, err
	}
	out := Changes{HasMore: len(items) > first}
	events, err := decodeAll(items[:min(len(items), first)], (*eventRecord).event)
	if err != nil {
		return Changes{}, err
	}
	last := after
	for _, ev := range events {
		if ev.Seq != last+1 {
			return Changes{}, fmt.Errorf("group %s activity log: event %d follows %d", groupID, ev.Seq, last)
		}
		last = ev.Seq
	}
	out.Events, out.Token = events, since
	if len(events) > 0 || since == "" {
		out.Token = s.SyncToken(groupID, last)
	}
	return out, nil
}

// HeadSyncToken is the sync token after the group's newest event, read
// strongly consistent.
func (s *Store) HeadSyncToken(ctx context.Context, groupID string) (string, error) {
	head, err := s.readHead(ctx, groupID)
	if err != nil {
		return "", err
	}
	return s.SyncToken(groupID, head.Seq), nil
}
