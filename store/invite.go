package store

import (
	"fmt"
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
}

// Live reports whether the invite still admits someone at now.
func (i Invite) Live(now time.Time) bool {
	return now.Before(i.ExpiresAt) && (i.MaxUses == 0 || i.Uses < i.MaxUses)
}

// Attributes of the invite item that expressions name.
const (
	attrUses          = "uses"
	attrMaxUses       = "maxUses"
	attrInviteExpires = "expiresAt"
)

// inviteRecord is the GROUP#<groupId> / INVITE#<inviteId> item, found by
// the hash of its secret in GSI2 and purged by TTL once expired.
type inviteRecord struct {
	itemKey
	ID            string `dynamodbav:"id"`
	CreatedBy     string `dynamodbav:"createdBy"`
	CreatedAt     string `dynamodbav:"createdAt"`
	ExpiresAt     string `dynamodbav:"expiresAt"`
	MaxUses       int    `dynamodbav:"maxUses,omitempty"`
	Uses          int    `dynamodbav:"uses"`
	PlaceholderID string `dynamodbav:"placeholderId,omitempty"`
	TTL           int64  `dynamodbav:"ttl"`
	FormatVersion int    `dynamodbav:"formatVersion"`
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
	return Invite{
		ID: r.ID, GroupID: groupIDFromPK(r.PK), CreatedBy: r.CreatedBy, CreatedAt: created,
		ExpiresAt: expires, MaxUses: r.MaxUses, Uses: r.Uses, PlaceholderID: r.PlaceholderID,
	}, nil
}
