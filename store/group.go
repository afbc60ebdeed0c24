package store

import (
	"fmt"
	"strconv"
	"time"

	"github.com/fracti/api/money"
)

// Group is a Telegram group or chat whose expenses are tracked together.
type Group struct {
	ID          string
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
		WeeklyReminder: r.WeeklyReminder,
	}
	if r.SettlementConfirmation == string(ConfirmByEitherParty) {
		g.SettlementConfirmation = ConfirmByEitherParty
	}
	return g, nil
}

// The fields of a group its activity events record.
const (
	FieldTitle                  = "title"
	FieldSettlementConfirmation = "settlementConfirmation"
	// FieldTimeZone is recorded only once a group has a zone other than UTC.
	FieldTimeZone = "timeZone"
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
		return d
	}
	var was map[string]string
	if before != nil {
		was = display(before)
	}
	return diffDisplays(was, display(after), []string{FieldTitle, FieldCurrency, FieldSettlementConfirmation, FieldJoinByIDAllowed, FieldTimeZone, FieldWeeklyReminder})
}
