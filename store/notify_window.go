package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BatchWindow is a group's batch window for one destination: the events
// that go out in its next message, and the notifier instance that owns
// (sends) it until its lease ends. Every instance that reads one of the
// group's events adds it to the open window (JoinWindow); one window is one
// message, however many instances read the events.
type BatchWindow struct {
	// ID names the window; it stays when another instance takes it over,
	// and a new window gets a new one.
	ID     string
	Owner  string
	Opened time.Time
	// LeaseUntil is when the owner's claim ends: another instance may take
	// the window over after it (an owner that died loses nothing).
	LeaseUntil time.Time
	Seqs       []int64
	// Closed: the last window was sent (its markers claimed); the next
	// event opens a new one.
	Closed bool
}

// ErrWindowChanged means the window is no longer as the caller read it:
// another instance took it over, it was closed, or events joined it.
var ErrWindowChanged = errors.New("the batch window changed")

// windowRecord is the GROUP#<groupId> / WINDOW#<destination> item. A
// closed window keeps only isClosed and ttl, so that the next claim starts
// from nothing.
type windowRecord struct {
	itemKey
	Window     string  `dynamodbav:"windowId,omitempty"`
	Owner      string  `dynamodbav:"ownedBy,omitempty"`
	Opened     string  `dynamodbav:"openedAt,omitempty"`
	LeaseUntil string  `dynamodbav:"leaseUntil,omitempty"`
	Seqs       []int64 `dynamodbav:"seqs,omitempty,numberset"`
	Closed     bool    `dynamodbav:"isClosed,omitempty"`
	TTL        int64   `dynamodbav:"ttl"`
}

func (r *windowRecord) window() (BatchWindow, error) {
	w := BatchWindow{ID: r.Window, Owner: r.Owner, Seqs: r.Seqs, Closed: r.Closed}
	slices.Sort(w.Seqs)
	var err error
	if r.Opened != "" {
		if w.Opened, err = parseTime(r.Opened); err != nil {
			return w, fmt.Errorf("batch window opened: %w", err)
		}
	}
	if r.LeaseUntil != "" {
		if w.LeaseUntil, err = parseTime(r.LeaseUntil); err != nil {
			return w, fmt.Errorf("batch window lease: %w", err)
		}
	}
	return w, nil
}

// The window item's attributes, as windowRecord names them.
const (
	attrWindowID    = "windowId"
	attrWindowOwner = "ownedBy"
	attrOpened      = "openedAt"
	attrLeaseUntil  = "leaseUntil"
	attrWindowSeqs  = "seqs"
	attrClosed      = "isClosed"
)

// The window's conditions: open (the owner's lease running), and free to
// claim (none yet, the last one closed, or its owner's lease over). Times
// are written in one fixed-width layout, so they compare as strings.
var (
	condWindowOpen  = attrExists(attrPK) + " AND " + attrNotExists(attrClosed) + " AND " + attrLeaseUntil + " >= :now"
	condWindowFree  = attrNotExists(attrPK) + " OR " + attrExists(attrClosed) + " OR " + attrLeaseUntil + " < :now"
	condWindowOwned = attrWindowOwner + " = :me AND " + attrWindowID + " = :id AND " + attrNotExists(attrClosed)
)

// windowKeep is how long a window item lives past its last write: as long
// as a marker, since it guards the same sends.
const windowKeep = NotifyMarkerKeep

// JoinWindow adds the group's events seqs to its open window for
// destination; when none is open it opens one owned by owner, whose lease
// ends at now+lease; and it takes over a window whose owner's lease has
// ended (keeping its events and id, the lease renewed for owner). It
// returns the window as it is after the write: owner is the caller's when
// it opened or took it over. At most a few UpdateItem calls (one in the
// common case: the window is open, or none is).
func (s *Store) JoinWindow(ctx context.Context, groupID, destination, owner string, seqs []int64, now time.Time, lease time.Duration) (BatchWindow, error) {
	if len(seqs) == 0 {
		return BatchWindow{}, errors.New("join window: no events")
	}
	set := make([]string, len(seqs))
	for i, seq := range seqs {
		set[i] = strconv.FormatInt(seq, 10)
	}
	values := map[string]types.AttributeValue{
		":s": &types.AttributeValueMemberNS{Value: set}, ":now": str(formatTime(now)),
		":ttl": number(now.Add(windowKeep).Unix()),
	}
	names := map[string]string{"#ttl": attrTTL}
	join := &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), windowSK(destination)),
		UpdateExpression:          aws.String("ADD " + attrWindowSeqs + " :s SET #ttl = :ttl"),
		ConditionExpression:       aws.String(condWindowOpen),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	}
	claimValues := map[string]types.AttributeValue{":me": str(owner), ":id": str(s.newID()), ":until": str(formatTime(now.Add(lease)))}
	for k, v := range values {
		claimValues[k] = v
	}
	claim := &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: join.Key,
		// A window taken over keeps its id, opening time and events.
		UpdateExpression: aws.String("ADD " + attrWindowSeqs + " :s SET " + attrWindowOwner + " = :me, " + attrLeaseUntil + " = :until, " +
			attrWindowID + " = if_not_exists(" + attrWindowID + ", :id), " + attrOpened + " = if_not_exists(" + attrOpened + ", :now), #ttl = :ttl REMOVE " + attrClosed),
		ConditionExpression:       aws.String(condWindowFree),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: claimValues,
		ReturnValues:              types.ReturnValueAllNew,
	}
	// The two conditions together cover every state, so only a window that
	// changed between the two calls takes another round.
	for range 4 {
		for _, in := range []*dynamodb.UpdateItemInput{join, claim} {
			out, err := s.db.UpdateItem(ctx, in)
			if IsCondCheckFailed(err) {
				continue
			}
			if err != nil {
				return BatchWindow{}, fmt.Errorf("join batch window: %w", err)
			}
			return decodeWindow(out.Attributes)
		}
	}
	return BatchWindow{}, fmt.Errorf("join batch window: %w", ErrWindowChanged)
}

// Window reads the group's window for destination (strongly consistent);
// found is false when there has never been one.
func (s *Store) Window(ctx context.Context, groupID, destination string) (w BatchWindow, found bool, err error) {
	item, found, err := s.getItem(ctx, groupPK(groupID), windowSK(destination), true)
	if err != nil || !found {
		return BatchWindow{}, false, err
	}
	w, err = decodeWindow(item)
	return w, true, err
}

// TakeOverWindow makes owner the owner of window w, on the condition that
// it is still open as w and its owner's lease has ended (at now); the new
// lease ends at now+lease. It reports whether it did.
func (s *Store) TakeOverWindow(ctx context.Context, groupID, destination, owner string, w BatchWindow, now time.Time, lease time.Duration) (bool, error) {
	return s.leaseWindow(ctx, groupID, destination, w, now.Add(lease),
		attrWindowID+" = :id AND "+attrNotExists(attrClosed)+" AND "+attrLeaseUntil+" < :now", ":me", owner, ":now", formatTime(now))
}

// ReleaseWindow ends owner's lease of window w at once (at now), so that
// the next instance to read one of its events takes it over without
// waiting: what a notifier that stops does with the windows it owns.
func (s *Store) ReleaseWindow(ctx context.Context, groupID, destination, owner string, w BatchWindow, now time.Time) error {
	_, err := s.leaseWindow(ctx, groupID, destination, w, now.Add(-time.Millisecond), condWindowOwned, ":me", owner)
	return err
}

// leaseWindow sets the lease of window w (and its owner, to :me) on cond.
func (s *Store) leaseWindow(ctx context.Context, groupID, destination string, w BatchWindow, until time.Time, cond string, values ...string) (bool, error) {
	vals := map[string]types.AttributeValue{":id": str(w.ID), ":until": str(formatTime(until))}
	for i := 0; i+1 < len(values); i += 2 {
		vals[values[i]] = str(values[i+1])
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), windowSK(destination)),
		UpdateExpression:          aws.String("SET " + attrWindowOwner + " = :me, " + attrLeaseUntil + " = :until"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeValues: vals,
	})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lease batch window: %w", err)
	}
	return true, nil
}

// CloseWindow closes owner's window w, as it read it, and claims the
// notification markers of its events seqs (a subset of w.Seqs: those with
// something to say) for destination, in one transaction: the window is
// closed exactly when its markers are written. It returns the seqs claimed
// (markers already there, from an earlier send, are left out and the rest
// claimed again), or ErrWindowChanged when the window is no longer owner's
// as w (taken over, closed, or joined by more events: read it again).
// Past 99 markers, the first ones are claimed in transactions of their own
// and the window is closed with the last.
func (s *Store) CloseWindow(ctx context.Context, groupID, destination, owner string, w BatchWindow, seqs []int64, now time.Time) ([]int64, error) {
	close := types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(groupID), windowSK(destination)),
		UpdateExpression: aws.String("SET " + attrClosed + " = :t, #ttl = :ttl REMOVE " + attrWindowSeqs + ", " + attrWindowID + ", " +
			attrWindowOwner + ", " + attrOpened + ", " + attrLeaseUntil),
		ConditionExpression:      aws.String(condWindowOwned + " AND size(" + attrWindowSeqs + ") = :n"),
		ExpressionAttributeNames: map[string]string{"#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberBOOL{Value: true}, ":ttl": number(now.Add(windowKeep).Unix()),
			":me": str(owner), ":id": str(w.ID), ":n": number(int64(len(w.Seqs))),
		},
	}}
	claimed, err := s.claimNotifications(ctx, groupID, seqs, destination, &close)
	if errors.Is(err, errExtraFailed) {
		return claimed, ErrWindowChanged
	}
	return claimed, err
}

func decodeWindow(item map[string]types.AttributeValue) (BatchWindow, error) {
	var r windowRecord
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return BatchWindow{}, fmt.Errorf("decode batch window: %w", err)
	}
	return r.window()
}

// GetEvents reads the group's activity events seqs (strongly consistent),
// in order of seq; events not found are left out.
func (s *Store) GetEvents(ctx context.Context, groupID string, seqs []int64) ([]Event, error) {
	keys := make([]map[string]types.AttributeValue, 0, len(seqs))
	for _, seq := range seqs {
		keys = append(keys, tableKey(groupPK(groupID), eventSK(seq)))
	}
	items, err := s.batchRead(ctx, dedupeKeys(keys), true)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(items))
	for _, item := range items {
		var r eventRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return nil, fmt.Errorf("decode event %s: %w", keyAttr(item, attrSK), err)
		}
		ev, err := r.event()
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b Event) int { return int(a.Seq - b.Seq) })
	return out, nil
}
