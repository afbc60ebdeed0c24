package store

import (
	"fmt"
	"strconv"
	"time"

	"github.com/fracti/api/money"
)

// Group is a Telegram group or chat whose expenses are tracked together.
type Group struct {
	ID string
	// AvatarURL is the storage path of the group's picture (SetAvatar); ""
	// without one.
	AvatarURL   string
	ChatID      string // Telegram chat id; empty when the group is not tied to a chat
	Title       string
	Currency    money.Currency // the default currency of the group's expenses
	CreatedAt   time.Time
	MemberCount int
	// SettlementConfirmation says who may complete a settlement.
	SettlementConfirmation SettlementConfirmation
	// Version is 1 when the group is created and grows by one with every
	// update of its title or currency; an update must name the version it read.
	Version int
	// JoinByID says whether anyone who knows the group's id may join it
	// without an invite; nil for groups created before the setting existed
	// (see Store.AdmitsByID).
	JoinByID *bool
	// TimeZone is the IANA name of the zone the group's days are counted in
	// (Expense.SpentOn, its spending summaries); "" is UTC.
	TimeZone string
	// ChatLanguage is the language_code of the member who connected the
	// chat: the group's messages are written in it ("" unknown).
	ChatLanguage string
	// ChatConnectedBy is the member who connected the chat: the actor of its
	// disconnection when Telegram, not a member, removes the bot.
	ChatConnectedBy string
	// WeeklyReminder asks for a reminder of the group's debts once a week.
	WeeklyReminder bool
	// RolesKept: the group's memberships carry their roles (roles.go);
	// false for groups written before roles, whose creator is their owner.
	RolesKept bool
	// AdminOnly is what needs an admin (roles.go); nil is DefaultAdminOnly.
	AdminOnly []Action
	// DaysKept: every live expense has its day item (expense_day.go), so a
	// range of spent days is read by its days alone.
	DaysKept bool
	// PairwiseDebts turns Splitwise's "simplify debts" off: the group's
	// debts are shown by default pairwise, as the expenses and settlements
	// left them, not as the fewest transfers (the default; SimplifyDebts).
	PairwiseDebts bool
	// ArchivedAt is when the group was archived: it is read-only until it is
	// unarchived (nil: it is not archived).
	ArchivedAt *time.Time
	// DeletedAt is when the group was deleted, and PurgeAfter when the purge
	// may take it (nil: it is not deleted). Reads see a deleted group only
	// through DeletedGroup; everything else finds no group at all.
	DeletedAt, PurgeAfter *time.Time
}

// SimplifyDebts reports whether the group's debts are shown by default as
// the fewest transfers that clear every balance.
func (g *Group) SimplifyDebts() bool { return !g.PairwiseDebts }

// Archived reports whether the group is archived (read-only).
func (g *Group) Archived() bool { return g.ArchivedAt != nil }

// Writable is the ErrArchived every write to an archived group gets, or
// nil: for the work that checks before it starts rather than at its write.
func (g *Group) Writable() error {
	if g.Archived() {
		return errArchived
	}
	return nil
}

// SettlementConfirmation says who may mark a group's settlements completed,
// which is what moves balances.
type SettlementConfirmation string

// The confirmation rules; a group without one stored confirms by recipient.
const (
	// ConfirmByRecipient: the member who is paid confirms (the default), so
	// nobody can certify their own payment.
	ConfirmByRecipient SettlementConfirmation = "recipient"
	// ConfirmByEitherParty: the payer may complete it too, for groups whose
	// members trust each other.
	ConfirmByEitherParty SettlementConfirmation = "either"
)

// groupRecord is the GROUP#<id> / METADATA item.
type groupRecord struct {
	itemKey
	ID          string `dynamodbav:"id"`
	ChatID      string `dynamodbav:"chatId,omitempty"`
	Title       string `dynamodbav:"title"`
	Currency    string `dynamodbav:"currency"`
	CreatedAt   string `dynamodbav:"createdAt"`
	MemberCount int    `dynamodbav:"memberCount"`
	// SettlementConfirmation is omitted for ConfirmByRecipient.
	SettlementConfirmation string `dynamodbav:"settlementConfirmation,omitempty"`
	// Version is absent on groups written before versions (read as 1).
	Version       int `dynamodbav:"version,omitempty"`
	FormatVersion int `dynamodbav:"formatVersion,omitempty"`
	// JoinByID is absent on groups created before it existed.
	JoinByID *bool `dynamodbav:"joinByIdAllowed,omitempty"`
	// TimeZone is absent for UTC.
	TimeZone string `dynamodbav:"timeZone,omitempty"`
	// ChatLanguage and ChatConnectedBy are set with chatId by ConnectTelegramChat.
	ChatLanguage    string `dynamodbav:"chatLanguage,omitempty"`
	ChatConnectedBy string `dynamodbav:"chatConnectedBy,omitempty"`
	// WeeklyReminder is absent when off.
	WeeklyReminder bool `dynamodbav:"weeklyReminder,omitempty"`
	// RolesKept is absent on groups written before roles; AdminOnly while
	// the group keeps the default (adminOnlyText).
	RolesKept bool   `dynamodbav:"rolesKept,omitempty"`
	AdminOnly string `dynamodbav:"adminOnly,omitempty"`
	// DaysKept is absent until the group's day items are complete.
	DaysKept bool `dynamodbav:"daysKept,omitempty"`
	// SimplifyDebts is absent for true (the default, and groups created before it).
	SimplifyDebts *bool `dynamodbav:"simplifyDebts,omitempty"`
	// ArchivedAt and DeletedAt mirror the ledger's (written in the same
	// transaction): writes are refused by the ledger, reads see these.
	ArchivedAt string `dynamodbav:"archivedAt,omitempty"`
	DeletedAt  string `dynamodbav:"deletedAt,omitempty"`
	// PurgeAfter is when a deleted group may be purged; the item then also
	// carries GSI1 keys PURGE / <purgeAfter>#<groupId> (keys.go). Purging
	// is set when the purge has begun: a restore is then refused.
	PurgeAfter string `dynamodbav:"purgeAfter,omitempty"`
	Purging    bool   `dynamodbav:"purging,omitempty"`
	// AvatarURL is the storage path of the group's uploaded picture.
	AvatarURL string `dynamodbav:"avatarUrl,omitempty"`
}

// Attributes of the group and ledger items that expressions name.
const (
	attrTitle         = "title"
	attrGroupCurrency = "currency"
	attrMemberCount   = "memberCount"
	attrMemberIDs     = "memberIds"
	attrCurrencies    = "currencies"
	attrVersion       = "version"
	attrClaims        = "claims"
	attrRolesKept     = "rolesKept"
	attrAdminOnly     = "adminOnly"
	attrArchivedAt    = "archivedAt"
	attrDeletedAt     = "deletedAt"
	attrPurgeAfter    = "purgeAfter"
	attrPurging       = "purging"
	attrSimplifyDebts = "simplifyDebts"
)

// ledgerRecord is the GROUP#<id> / LEDGER item: the ids of the current
// members, so that one condition on one item can require that every user an
// expense involves belongs to the group. It exists exactly as long as the
// group does, so a condition on it is a condition on the group too.
//
// Every write that changes balances also bumps its version, so that leaving
// (allowed only at a zero balance) can be conditioned on nothing having
// changed since the balances were read; currencies lists the group's
// books (LEDGER#<currency> items). It also keeps the head of the group's activity
// chain, so every write to the group passes through it.
type ledgerRecord struct {
	itemKey
	MemberIDs  []string `dynamodbav:"memberIds,stringset,omitempty"`
	Currencies []string `dynamodbav:"currencies,stringset,omitempty"`
	Version    int64    `dynamodbav:"version"`
	// Events and Head are the activity chain's head (chain.go).
	Events int64  `dynamodbav:"events,omitempty"`
	Head   string `dynamodbav:"head,omitempty"`
	// ResealFrom, ResealedTo and ResealLink are a reseal under way
	// (reseal_chain.go): the head it set out to reseal, "<events>:<head>",
	// how many events it has resealed, and the hash the next event's
	// prevHash still names (event ResealedTo's hash before it was resealed).
	ResealFrom string `dynamodbav:"resealFrom,omitempty"`
	ResealedTo int64  `dynamodbav:"resealedTo,omitempty"`
	ResealLink string `dynamodbav:"resealLink,omitempty"`
	// Claims are the placeholder claims under way, "<placeholderId>:<userId>"
	// (claim_placeholder.go).
	Claims []string `dynamodbav:"claims,stringset,omitempty"`
	// BooksBeside: the group's books are all at LEDGER#<currency>; without
	// it some may still be at BALANCES#<currency> (see keys.go).
	BooksBeside bool `dynamodbav:"booksBeside,omitempty"`
	// ArchivedAt and DeletedAt close the group to writes: every write's
	// ledger edit requires them absent unless it opts out (ledgerEdit).
	ArchivedAt string `dynamodbav:"archivedAt,omitempty"`
	DeletedAt  string `dynamodbav:"deletedAt,omitempty"`
}

func (g Group) record() groupRecord {
	r := groupRecord{
		itemKey: itemKey{
			PK: groupPK(g.ID), SK: skMetadata,
		},
		ID: g.ID, ChatID: g.ChatID, Title: g.Title, Currency: g.Currency.Code(),
		CreatedAt: formatTime(g.CreatedAt), MemberCount: g.MemberCount,
		Version: g.Version, FormatVersion: formatCurrent, JoinByID: g.JoinByID, TimeZone: g.TimeZone,
		ChatLanguage: g.ChatLanguage, ChatConnectedBy: g.ChatConnectedBy, WeeklyReminder: g.WeeklyReminder,
		DaysKept: g.DaysKept, RolesKept: g.RolesKept, AvatarURL: g.AvatarURL,
	}
	if g.AdminOnly != nil {
		r.AdminOnly = adminOnlyText(g.AdminOnly)
	}
	if g.PairwiseDebts {
		off := false
		r.SimplifyDebts = &off
	}
	if g.SettlementConfirmation != ConfirmByRecipient {
		r.SettlementConfirmation = string(g.SettlementConfirmation)
	}
	return r
}

func (r *groupRecord) group() (Group, error) {
	cur, err := money.LookupCurrency(r.Currency)
	if err != nil {
		return Group{}, fmt.Errorf("group %s: %w", r.ID, err)
	}
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Group{}, fmt.Errorf("group %s createdAt: %w", r.ID, err)
	}
	g := Group{
		ID: r.ID, ChatID: r.ChatID, Title: r.Title, Currency: cur,
		CreatedAt: created, MemberCount: r.MemberCount,
		SettlementConfirmation: ConfirmByRecipient, Version: max(r.Version, 1), JoinByID: r.JoinByID,
		TimeZone: r.TimeZone, ChatLanguage: r.ChatLanguage, ChatConnectedBy: r.ChatConnectedBy,
		WeeklyReminder: r.WeeklyReminder, RolesKept: r.RolesKept, AdminOnly: adminOnlyOf(r.AdminOnly), DaysKept: r.DaysKept,
		PairwiseDebts: r.SimplifyDebts != nil && !*r.SimplifyDebts, AvatarURL: r.AvatarURL,
	}
	if r.SettlementConfirmation == string(ConfirmByEitherParty) {
		g.SettlementConfirmation = ConfirmByEitherParty
	}
	for _, t := range []struct {
		text string
		into **time.Time
	}{{r.ArchivedAt, &g.ArchivedAt}, {r.DeletedAt, &g.DeletedAt}, {r.PurgeAfter, &g.PurgeAfter}} {
		if t.text == "" {
			continue
		}
		at, err := parseTime(t.text)
		if err != nil {
			return Group{}, fmt.Errorf("group %s: %w", r.ID, err)
		}
		*t.into = &at
	}
	return g, nil
}

// liveGroup is a METADATA item's group unless the group is deleted: what
// every read of groups but DeletedGroup sees, so that a deleted group
// disappears for everyone at once.
func liveGroup(r *groupRecord) (*Group, error) {
	if r.DeletedAt != "" {
		return nil, nil
	}
	g, err := r.group()
	return &g, err
}

// The fields of a group its activity events record.
const (
	FieldTitle                  = "title"
	FieldSettlementConfirmation = "settlementConfirmation"
	// FieldTimeZone is recorded only once a group has a zone other than UTC.
	FieldTimeZone = "timeZone"
	// FieldAdminOnly is recorded only once a group changes what needs an
	// admin: the actions, comma-separated, or "-" for none.
	FieldAdminOnly = "adminOnly"
	// FieldSimplifyDebts is recorded only while it is off ("false"): absent
	// is the default, on.
	FieldSimplifyDebts = "simplifyDebts"
)

// GroupChanges lists what differs between two states of a group, as display
// strings; with before nil (its creation), every field after has.
func GroupChanges(before, after *Group) []Change {
	display := func(g *Group) map[string]string {
		confirm := "RECIPIENT"
		if g.SettlementConfirmation == ConfirmByEitherParty {
			confirm = "EITHER_PARTY"
		}
		d := map[string]string{FieldTitle: g.Title, FieldCurrency: g.Currency.Code(), FieldSettlementConfirmation: confirm}
		if g.JoinByID != nil {
			d[FieldJoinByIDAllowed] = strconv.FormatBool(*g.JoinByID)
		}
		if g.TimeZone != "" {
			d[FieldTimeZone] = g.TimeZone
		}
		if g.WeeklyReminder {
			d[FieldWeeklyReminder] = "true"
		}
		if g.AdminOnly != nil {
			d[FieldAdminOnly] = adminOnlyText(g.AdminOnly)
		}
		if g.PairwiseDebts {
			d[FieldSimplifyDebts] = "false"
		}
		return d
	}
	var was map[string]string
	if before != nil {
		was = display(before)
	}
	return diffDisplays(was, display(after), []string{FieldTitle, FieldCurrency, FieldSettlementConfirmation, FieldJoinByIDAllowed, FieldTimeZone, FieldWeeklyReminder, FieldAdminOnly, FieldSimplifyDebts})
}
