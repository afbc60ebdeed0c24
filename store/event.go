package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// EventType is what happened in a group's activity event.
type EventType string

// The event types, stored as they are written here.
const (
	EventGroupCreated          EventType = "group_created"
	EventGroupUpdated          EventType = "group_updated"
	EventMemberJoined          EventType = "member_joined"
	EventMemberLeft            EventType = "member_left"
	EventWalletChanged         EventType = "wallet_changed"
	EventExpenseCreated        EventType = "expense_created"
	EventExpenseUpdated        EventType = "expense_updated"
	EventExpenseDeleted        EventType = "expense_deleted"
	EventExpenseRestored       EventType = "expense_restored"
	EventSettlementCreated     EventType = "settlement_created"
	EventSettlementUpdated     EventType = "settlement_updated" // marked sent, or its transaction hash set
	EventSettlementCompleted   EventType = "settlement_completed"
	EventSettlementFailed      EventType = "settlement_failed"
	EventPlaceholderAdded      EventType = "placeholder_added"
	EventPlaceholderClaimed    EventType = "placeholder_claimed" // the claim begins; the placeholder's MEMBER_LEFT ends it
	EventInviteCreated         EventType = "invite_created"
	EventInviteRevoked         EventType = "invite_revoked"
	EventRecurringCreated      EventType = "recurring_created"
	EventRecurringUpdated      EventType = "recurring_updated"
	EventRecurringPaused       EventType = "recurring_paused" // by a member, or by the scheduler when nobody is left
	EventRecurringResumed      EventType = "recurring_resumed"
	EventRecurringDeleted      EventType = "recurring_deleted"
	EventChatConnected         EventType = "chat_connected"
	EventChatDisconnected      EventType = "chat_disconnected" // by a member, or by Telegram when the bot was removed
	EventGroupImported         EventType = "group_imported"    // a whole imported file (import_group.go)
	EventMemberRoleChanged     EventType = "member_role_changed"
	EventOwnershipTransferred  EventType = "ownership_transferred" // the subject is the new owner
	EventMemberRemoved         EventType = "member_removed"        // by an admin; the actor is who removed them
	EventGroupArchived         EventType = "group_archived"        // read-only from now on (archive_group.go)
	EventGroupUnarchived       EventType = "group_unarchived"
	EventGroupDeleted          EventType = "group_deleted" // gone for everyone; restorable for GroupRestoreWindow (delete_group.go)
	EventGroupRestored         EventType = "group_restored"
	EventMemberErased          EventType = "member_erased"           // a member erased their data (erase_user.go)
	EventChainResealed         EventType = "chain_resealed"          // the log's format-1 events were resealed in format 2 (reseal_chain.go)
	EventPaymentHandlesChanged EventType = "payment_handles_changed" // a member's own handles in the group: the kinds only, never the values
)

// SubjectKind is the kind of object an event is about.
type SubjectKind string

// The subject kinds.
const (
	SubjectGroup      SubjectKind = "group"
	SubjectMember     SubjectKind = "member"
	SubjectExpense    SubjectKind = "expense"
	SubjectSettlement SubjectKind = "settlement"
	SubjectInvite     SubjectKind = "invite"
	SubjectRecurring  SubjectKind = "recurring"
)

// Subject names the object an event is about: a group by its id, a member by
// user id, an expense, settlement or invite by id and the time in its sort
// key (which locates its item without an index lookup while it exists).
type Subject struct {
	Kind SubjectKind
	ID   string
	// CreatedAt is that time: an expense's or settlement's creation, an
	// invite's expiry (zero for an invite keyed by id alone, before expiry
	// led its key).
	CreatedAt time.Time
	// ExpenseID is, for a comment, the expense it is on: with CreatedAt it
	// makes the comment's table key. It only locates the subject, so the
	// event's hash does not cover it; events before it have none.
	ExpenseID string
}

// Change is one field's value before and after a change, as display strings;
// nil where the field had no value (before a creation, an unset category).
type Change struct {
	Field  string
	Before *string
	After  *string
}

// Event is one entry of a group's activity log. Events are numbered from 1
// without gaps, and each carries a SHA-256 over its content and the hash of
// the event before it; the group's ledger keeps the newest hash (the head),
// written in the same transaction as the event and the change it records.
type Event struct {
	GroupID  string
	Seq      int64
	Type     EventType
	ActorID  string
	At       time.Time
	Subject  Subject
	Changes  []Change
	PrevHash string // "" for the first event
	Hash     string

	// raw is Changes as built, with their personal values inline
	// (personal.go), kept when seal renders Changes; sealed is the record
	// seal hashed, which the write stores as it is.
	raw    []Change
	sealed *eventRecord
}

// ExpenseRef locates the expense the event is about (ok false for other subjects).
func (ev *Event) ExpenseRef() (ExpenseRef, bool) {
	return ExpenseRef{ID: ev.Subject.ID, GroupID: ev.GroupID, CreatedAt: ev.Subject.CreatedAt}, ev.Subject.Kind == SubjectExpense
}

// SettlementRef locates the settlement the event is about (ok false for other subjects).
func (ev *Event) SettlementRef() (SettlementRef, bool) {
	return SettlementRef{ID: ev.Subject.ID, GroupID: ev.GroupID, CreatedAt: ev.Subject.CreatedAt}, ev.Subject.Kind == SubjectSettlement
}

// InviteRef locates the invite the event is about (ok false for other subjects).
func (ev *Event) InviteRef() (InviteRef, bool) {
	return InviteRef{GroupID: ev.GroupID, ID: ev.Subject.ID, KeyTime: ev.Subject.CreatedAt}, ev.Subject.Kind == SubjectInvite
}

// Joiner is the user who becomes a member of the group with this event:
// the one a MEMBER_JOINED names, and the creator of a group (whose
// GROUP_CREATED starts the group made by createGroup or an import); ok is
// false for every other event.
func (ev *Event) Joiner() (userID string, ok bool) {
	switch {
	case ev.Type == EventMemberJoined && ev.Subject.Kind == SubjectMember:
		return ev.Subject.ID, true
	case ev.Type == EventGroupCreated:
		return ev.ActorID, ev.ActorID != ""
	}
	return "", false
}

// eventRecord is the GROUP#<groupId> / EVENT#<seq> item. It is written once
// and never changed.
type eventRecord struct {
	itemKey
	GroupID          string         `dynamodbav:"groupId"`
	Seq              int64          `dynamodbav:"seq"`
	Type             string         `dynamodbav:"type"`
	ActorID          string         `dynamodbav:"actorId"`
	At               string         `dynamodbav:"at"`
	SubjectKind      string         `dynamodbav:"subjectKind"`
	SubjectID        string         `dynamodbav:"subjectId"`
	SubjectCreatedAt string         `dynamodbav:"subjectCreatedAt,omitempty"`
	SubjectExpenseID string         `dynamodbav:"subjectExpenseId,omitempty"`
	Changes          []changeRecord `dynamodbav:"changes"`
	PrevHash         string         `dynamodbav:"prevHash,omitempty"`
	Hash             string         `dynamodbav:"hash"`
	FormatVersion    int            `dynamodbav:"formatVersion"`
	// HashFormat is the hash's input format: absent on events written in
	// format 1 (names in the changes, hashed), 2 since (hashFormat2).
	HashFormat int `dynamodbav:"hashFormat,omitempty"`
	// Slots hold the changes' personal values (personal.go), format 2 only.
	Slots map[string]slotRecord `dynamodbav:"slots,omitempty"`
}

// changeRecord is a Change as stored, and as hashed.
type changeRecord struct {
	Field  string  `dynamodbav:"field" json:"field"`
	Before *string `dynamodbav:"before,omitempty" json:"before"`
	After  *string `dynamodbav:"after,omitempty" json:"after"`
}

func changeRecords(cs []Change) []changeRecord {
	out := make([]changeRecord, len(cs))
	for i, c := range cs {
		out[i] = changeRecord(c)
	}
	return out
}

func changesOf(rs []changeRecord) []Change {
	out := make([]Change, len(rs))
	for i, r := range rs {
		out[i] = Change(r)
	}
	return out
}

// record is the event as stored: the record seal hashed, once sealed.
func (ev *Event) record() eventRecord {
	if ev.sealed != nil {
		return *ev.sealed
	}
	changes := ev.raw
	if changes == nil {
		changes = ev.Changes
	}
	recs, slots := splitRefs(changes, true)
	r := eventRecord{
		itemKey: itemKey{PK: groupPK(ev.GroupID), SK: eventSK(ev.Seq)},
		GroupID: ev.GroupID, Seq: ev.Seq, Type: string(ev.Type), ActorID: ev.ActorID, At: formatTime(ev.At),
		SubjectKind: string(ev.Subject.Kind), SubjectID: ev.Subject.ID, SubjectExpenseID: ev.Subject.ExpenseID,
		Changes: recs, PrevHash: ev.PrevHash, Hash: ev.Hash, FormatVersion: formatCurrent,
		HashFormat: hashFormatCurrent, Slots: slots,
	}
	if !ev.Subject.CreatedAt.IsZero() {
		r.SubjectCreatedAt = formatTime(ev.Subject.CreatedAt)
	}
	return r
}

func (r *eventRecord) event() (Event, error) {
	at, err := parseTime(r.At)
	if err != nil {
		return Event{}, fmt.Errorf("event %s at: %w", r.SK, err)
	}
	ev := Event{
		GroupID: r.GroupID, Seq: r.Seq, Type: EventType(r.Type), ActorID: r.ActorID, At: at,
		Subject:  Subject{Kind: SubjectKind(r.SubjectKind), ID: r.SubjectID, ExpenseID: r.SubjectExpenseID},
		Changes:  renderChanges(r.Changes, r.Slots),
		PrevHash: r.PrevHash, Hash: r.Hash,
	}
	if r.SubjectCreatedAt != "" {
		if ev.Subject.CreatedAt, err = parseTime(r.SubjectCreatedAt); err != nil {
			return Event{}, fmt.Errorf("event %s subjectCreatedAt: %w", r.SK, err)
		}
	}
	return ev, nil
}

// hashedEvent is what an event's hash covers, in a fixed order: all of its
// content and the previous event's hash. encoding/json writes struct fields
// in declaration order and escapes strings one way, so the bytes are
// canonical.
type hashedEvent struct {
	Format      string         `json:"format"`
	GroupID     string         `json:"groupId"`
	Seq         int64          `json:"seq"`
	Type        string         `json:"type"`
	ActorID     string         `json:"actorId"`
	At          string         `json:"at"`
	SubjectKind string         `json:"subjectKind"`
	SubjectID   string         `json:"subjectId"`
	SubjectAt   string         `json:"subjectCreatedAt"`
	Changes     []changeRecord `json:"changes"`
	PrevHash    string         `json:"prevHash"`
	// Slots (format 2): each personal value's slot and digest, by slot;
	// omitted when empty, and always in format 1, whose bytes stay as they were.
	Slots []hashedSlot `json:"slots,omitempty"`
}

// The hash's input formats: format 1 covers the changes' strings as they
// are, names and wallets included; format 2 covers them with references in
// place of personal values, and each value's salted digest (personal.go), so
// that erasing a value leaves the chain verifying.
const (
	hashFormat1       = 1
	hashFormat2       = 2
	hashFormatCurrent = hashFormat2
)

// hashFormatNames name the formats inside the hashed bytes.
var hashFormatNames = map[int]string{hashFormat1: "fracti-event-1", hashFormat2: "fracti-event-2"}

// hashFormat is the record's hash format: format 1 when absent.
func (r *eventRecord) hashFormat() int {
	if r.HashFormat == 0 {
		return hashFormat1
	}
	return r.HashFormat
}

// computeHash is the hex SHA-256 of the event's content and PrevHash, in
// the record's hash format.
func (r *eventRecord) computeHash() string {
	changes := r.Changes
	if changes == nil {
		changes = []changeRecord{}
	}
	h := hashedEvent{
		Format: hashFormatNames[r.hashFormat()], GroupID: r.GroupID, Seq: r.Seq, Type: r.Type, ActorID: r.ActorID, At: r.At,
		SubjectKind: r.SubjectKind, SubjectID: r.SubjectID, SubjectAt: r.SubjectCreatedAt,
		Changes: changes, PrevHash: r.PrevHash,
	}
	if r.hashFormat() >= hashFormat2 {
		h.Slots = hashedSlots(r.Slots)
	}
	b, err := json.Marshal(h)
	if err != nil {
		panic(err) // strings and numbers only: cannot fail
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// seal numbers the event after head and hashes it into the chain; its
// Changes then show what readers will see (personal values rendered).
func (ev *Event) seal(head chainHead) {
	if ev.raw == nil {
		ev.raw = ev.Changes
	}
	ev.sealed = nil
	ev.Seq, ev.PrevHash, ev.Hash = head.Seq+1, head.Hash, ""
	r := ev.record()
	r.Hash = r.computeHash()
	ev.Hash, ev.sealed = r.Hash, &r
	ev.Changes = renderChanges(r.Changes, r.Slots)
}

// text is s, or nil for "": a Change value, or GraphQL's null for an
// optional string (fields.go).
func text(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
