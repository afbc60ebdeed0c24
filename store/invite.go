package store

import (
	"fmt"
	"strconv"
	"time"
)

// Invite lets whoever holds its secret join a group until it expires, is
// used up or is revoked. Only the SHA-256 hash of the secret is stored.
type Invite struct {
	ID        string
	GroupID   string
	CreatedBy string // the member who created it
	CreatedAt time.Time
	ExpiresAt time.Time
	MaxUses   int // 0: no limit but the expiry
	Uses      int
	// PlaceholderID names the placeholder member the invite was made for, if
	// any: joining with it claims that placeholder.
	PlaceholderID string
	// RevokedAt is when a member revoked it; a revoked invite is kept, for
	// its activity events to show, until TTL purges it after its expiry.
	RevokedAt *time.Time

	sk string // the sort key it was read from: invites keyed before the expiry led have their own shape
}

// Live reports whether the invite still admits someone at now.
func (i Invite) Live(now time.Time) bool {
	return i.RevokedAt == nil && now.Before(i.ExpiresAt) && (i.MaxUses == 0 || i.Uses < i.MaxUses)
}

// key is the invite's sort key: where it was read from, or where it is
// written.
func (i *Invite) key() string {
	if i.sk != "" {
		return i.sk
	}
	return inviteSK(formatTime(i.ExpiresAt), i.ID)
}

// keyTime is the time in the invite's sort key (its expiry), which its
// activity events keep to find it by key; zero for an invite keyed the old
// way, by id alone.
func (i *Invite) keyTime() time.Time {
	if isOldInviteSK(i.key()) {
		return time.Time{}
	}
	return i.ExpiresAt
}

// InviteRef locates an invite by key: its group, id and the time in its sort
// key (Invite.keyTime; zero for an invite keyed by id alone).
type InviteRef struct {
	GroupID string
	ID      string
	KeyTime time.Time
}

// sk is the sort key the reference names.
func (r InviteRef) sk() string {
	if r.KeyTime.IsZero() {
		return oldInviteSK(r.ID)
	}
	return inviteSK(formatTime(r.KeyTime), r.ID)
}

// Attributes of the invite item that expressions name.
const (
	attrUses          = "uses"
	attrMaxUses       = "maxUses"
	attrInviteExpires = "expiresAt"
	attrRevokedAt     = "revokedAt"
	attrInviteID      = "id"
)

// inviteLive: a filter on invites read at :now that keeps those that still
// admit someone, as Invite.Live does.
var inviteLive = attrNotExists(attrRevokedAt) + " AND " + attrInviteExpires + " > :now AND (" +
	attrNotExists(attrMaxUses) + " OR " + attrUses + " < " + attrMaxUses + ")"

// inviteRecord is the GROUP#<groupId> / INVITE!<expiresAt>#<inviteId> item
// (INVITE#<inviteId> before), found by the hash of its secret in GSI2 and
// purged by TTL once expired.
type inviteRecord struct {
	itemKey
	ID            string `dynamodbav:"id"`
	CreatedBy     string `dynamodbav:"createdBy"`
	CreatedAt     string `dynamodbav:"createdAt"`
	ExpiresAt     string `dynamodbav:"expiresAt"`
	MaxUses       int    `dynamodbav:"maxUses,omitempty"`
	Uses          int    `dynamodbav:"uses"`
	PlaceholderID string `dynamodbav:"placeholderId,omitempty"`
	RevokedAt     string `dynamodbav:"revokedAt,omitempty"`
	TTL           int64  `dynamodbav:"ttl"`
	FormatVersion int    `dynamodbav:"formatVersion"`
}

// record is the new invite's item, stored under the hash of its secret.
func (i *Invite) record(secretHash string) inviteRecord {
	return inviteRecord{
		itemKey: itemKey{
			PK: groupPK(i.GroupID), SK: i.key(),
			GSI2PK: inviteGSI2PK(secretHash), GSI2SK: i.GroupID,
		},
		ID: i.ID, CreatedBy: i.CreatedBy, CreatedAt: formatTime(i.CreatedAt),
		ExpiresAt: formatTime(i.ExpiresAt), MaxUses: i.MaxUses, PlaceholderID: i.PlaceholderID,
		TTL: i.ExpiresAt.Add(time.Second - 1).Unix(), FormatVersion: formatCurrent,
	}
}

func (r *inviteRecord) invite() (Invite, error) {
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Invite{}, fmt.Errorf("invite %s createdAt: %w", r.ID, err)
	}
	expires, err := parseTime(r.ExpiresAt)
	if err != nil {
		return Invite{}, fmt.Errorf("invite %s expiresAt: %w", r.ID, err)
	}
	inv := Invite{
		ID: r.ID, GroupID: groupIDFromPK(r.PK), CreatedBy: r.CreatedBy, CreatedAt: created,
		ExpiresAt: expires, MaxUses: r.MaxUses, Uses: r.Uses, PlaceholderID: r.PlaceholderID, sk: r.SK,
	}
	if r.RevokedAt != "" {
		revoked, err := parseTime(r.RevokedAt)
		if err != nil {
			return Invite{}, fmt.Errorf("invite %s revokedAt: %w", r.ID, err)
		}
		inv.RevokedAt = &revoked
	}
	return inv, nil
}

// The fields of an invite its activity events record.
const (
	FieldExpiresAt = "expiresAt"
	FieldMaxUses   = "maxUses"
	FieldRevokedAt = "revokedAt"
)

// InviteChanges lists what differs between two states of an invite, as
// display strings; with before nil, every field after has. The secret is
// never among them (the store does not have it).
func InviteChanges(before, after *Invite) []Change {
	display := func(i *Invite) map[string]string {
		d := map[string]string{FieldExpiresAt: formatTime(i.ExpiresAt)}
		if i.MaxUses > 0 {
			d[FieldMaxUses] = strconv.Itoa(i.MaxUses)
		}
		if i.RevokedAt != nil {
			d[FieldRevokedAt] = formatTime(*i.RevokedAt)
		}
		return d
	}
	var was map[string]string
	if before != nil {
		was = display(before)
	}
	return diffDisplays(was, display(after), []string{FieldExpiresAt, FieldMaxUses, FieldRevokedAt})
}

// inviteEvent is the activity event of a change to an invite.
func inviteEvent(t EventType, inv *Invite, actor string, at time.Time, changes []Change) Event {
	return Event{
		GroupID: inv.GroupID, Type: t, ActorID: actor, At: at,
		Subject: Subject{Kind: SubjectInvite, ID: inv.ID, CreatedAt: inv.keyTime()},
		Changes: changes,
	}
}
