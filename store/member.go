package store

import (
	"fmt"
	"strconv"
	"time"

	"github.com/fracti/api/payments"
)

// Member is one user's membership in one group.
type Member struct {
	GroupID   string
	UserID    string // Telegram user id, decimal
	Name      string
	Username  string
	Wallet    string // TON wallet address, empty if none
	AvatarURL string
	JoinedAt  time.Time
	LeftAt    *time.Time // set once the user has left the group
	// Placeholder marks someone a member added who has not joined yet: no
	// Telegram user, an id of its own (PlaceholderPrefix...).
	Placeholder bool
	// AddedBy is the member who added a placeholder.
	AddedBy string
	// ClaimedBy is the user who took over the placeholder, once claimed (or
	// while the claim is under way; LeftAt is set when it is done).
	ClaimedBy string
	// Language is the member's Telegram language_code ("ru"; "" unknown):
	// the language of their direct messages.
	Language string
	// Muted: no direct message from this group reaches the member.
	Muted bool
	// Digest is how often the member hears of the group's changes (DigestNone:
	// at each change).
	Digest Digest
	// Role is the role the membership carries: "" for a member, and for every
	// membership of a group written before roles (Group.RoleOf reads it).
	Role Role
	// ErasedAt is set once the user erased their data (erase_user.go): the
	// membership is a former one named ErasedName, with nothing personal left.
	ErasedAt *time.Time
	// PaymentHandles are the member's own payment handles in this group;
	// nil when they show their default (payment_handles.go).
	PaymentHandles *payments.Handles
	payVersion     int64 // payV: the version of PaymentHandles
}

// Active reports whether the user is (still) a member.
func (m *Member) Active() bool { return m != nil && m.LeftAt == nil }

// Available reports whether new expenses and settlements may name the
// member: an active member, and not a placeholder someone has claimed.
func (m *Member) Available() bool { return m.Active() && m.ClaimedBy == "" }

// MemberKey names a membership.
type MemberKey struct {
	GroupID string
	UserID  string
}

// Key is the membership's key.
func (m Member) Key() MemberKey { return MemberKey{GroupID: m.GroupID, UserID: m.UserID} }

// NewMember is a user about to join a group.
type NewMember struct {
	UserID    string
	Name      string
	Username  string
	AvatarURL string
	// Language is the user's Telegram language_code, "" unknown.
	Language string
}

// Attributes of the membership item that expressions name.
const (
	attrLeftAt = "leftAt"
	attrWallet = "wallet"
	attrRole   = "role"
)

// memberNotLeft is true of a membership that has not ended.
var memberNotLeft = attrNotExists(attrLeftAt)

// memberRecord is the GROUP#<groupId> / USER#<userId> item.
// Its GSI1 keys are removed when the user leaves.
type memberRecord struct {
	itemKey
	ID         string `dynamodbav:"id"`
	TelegramID int64  `dynamodbav:"telegramId,omitempty"` // absent on placeholders
	Name       string `dynamodbav:"name"`
	Username   string `dynamodbav:"username,omitempty"`
	Wallet     string `dynamodbav:"wallet,omitempty"`
	AvatarURL  string `dynamodbav:"avatarUrl,omitempty"`
	JoinedAt   string `dynamodbav:"joinedAt"`
	LeftAt     string `dynamodbav:"leftAt,omitempty"`
	// Placeholder, AddedBy and ClaimedBy are set on placeholders only.
	Placeholder bool   `dynamodbav:"placeholder,omitempty"`
	AddedBy     string `dynamodbav:"addedBy,omitempty"`
	ClaimedBy   string `dynamodbav:"claimedBy,omitempty"`
	// Language, Muted and Digest are absent until set (notification_settings.go).
	Language string `dynamodbav:"language,omitempty"`
	Muted    bool   `dynamodbav:"muted,omitempty"`
	Digest   string `dynamodbav:"digest,omitempty"`
	// Role is absent for a member (roles.go).
	Role string `dynamodbav:"role,omitempty"`
	// FormatVersion is absent on memberships written before it (format 1).
	FormatVersion int `dynamodbav:"formatVersion,omitempty"`
	// ErasedAt is set on an erased membership.
	ErasedAt string `dynamodbav:"erasedAt,omitempty"`
	// Pay and PayV are the member's own payment handles and their version,
	// absent until set (payment_handles.go).
	Pay  *payRecord `dynamodbav:"pay,omitempty"`
	PayV int64      `dynamodbav:"payV,omitempty"`
}

func newMemberRecord(groupID string, m NewMember, joined time.Time) (memberRecord, error) {
	tgID, err := strconv.ParseInt(m.UserID, 10, 64)
	if err != nil || tgID <= 0 {
		return memberRecord{}, fmt.Errorf("user id %q is not a Telegram user id", m.UserID)
	}
	return memberRecord{
		itemKey: itemKey{
			PK: groupPK(groupID), SK: memberSK(m.UserID),
			GSI1PK: userKey(m.UserID), GSI1SK: groupGSI1SK(groupID),
		},
		ID: m.UserID, TelegramID: tgID, Name: m.Name, Username: m.Username,
		AvatarURL: m.AvatarURL, JoinedAt: formatTime(joined), FormatVersion: formatCurrent,
		Language: m.Language,
	}, nil
}

func (r *memberRecord) member() (Member, error) {
	joined, err := parseTime(r.JoinedAt)
	if err != nil {
		return Member{}, fmt.Errorf("member %s joinedAt: %w", r.SK, err)
	}
	m := Member{
		GroupID: groupIDFromPK(r.PK), UserID: r.ID, Name: r.Name, Username: r.Username,
		Wallet: r.Wallet, AvatarURL: r.AvatarURL, JoinedAt: joined,
		Placeholder: r.Placeholder, AddedBy: r.AddedBy, ClaimedBy: r.ClaimedBy,
		Language: r.Language, Muted: r.Muted, Digest: digestOf(r.Digest), Role: Role(r.Role),
		PaymentHandles: r.Pay.handles(), payVersion: r.PayV,
	}
	if r.LeftAt != "" {
		left, err := parseTime(r.LeftAt)
		if err != nil {
			return Member{}, fmt.Errorf("member %s leftAt: %w", r.SK, err)
		}
		m.LeftAt = &left
	}
	if r.ErasedAt != "" {
		erased, err := parseTime(r.ErasedAt)
		if err != nil {
			return Member{}, fmt.Errorf("member %s erasedAt: %w", r.SK, err)
		}
		m.ErasedAt = &erased
	}
	return m, nil
}
