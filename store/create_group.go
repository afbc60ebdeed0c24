package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/money"
)

// NewGroup is what creating a group needs.
type NewGroup struct {
	Title    string
	ChatID   string
	Currency money.Currency
	Creator  NewMember // becomes the first member
	// SettlementConfirmation is who may complete settlements (default ConfirmByRecipient).
	SettlementConfirmation SettlementConfirmation
	// JoinByIDAllowed lets anyone who knows the group's id join without an invite.
	JoinByIDAllowed bool
	// TimeZone is the IANA name of the group's time zone ("" is UTC).
	TimeZone string
	// AdminOnly is what needs an admin; nil keeps DefaultAdminOnly.
	AdminOnly []Action
	// PairwiseDebts shows the group's debts pairwise by default (see Group).
	PairwiseDebts bool
}

// CreateGroup writes a group (version 1), its ledger, its first member and
// the first event of its activity chain (GROUP_CREATED, by the creator) in
// one transaction. The creator is the group's owner.
func (s *Store) CreateGroup(ctx context.Context, in NewGroup) (Group, Member, error) {
	now := s.stamp()
	g := Group{
		ID: s.newID(), ChatID: in.ChatID, Title: in.Title, Currency: in.Currency,
		CreatedAt: now, MemberCount: 1, SettlementConfirmation: in.SettlementConfirmation, Version: 1,
		JoinByID: &in.JoinByIDAllowed, TimeZone: in.TimeZone, RolesKept: true, AdminOnly: in.AdminOnly, DaysKept: true,
		PairwiseDebts: in.PairwiseDebts,
	}
	if g.ChatID != "" {
		g.ChatConnectedBy, g.ChatLanguage = in.Creator.UserID, in.Creator.Language
	}
	if g.SettlementConfirmation == "" {
		g.SettlementConfirmation = ConfirmByRecipient
	}
	mrec, err := newMemberRecord(g.ID, in.Creator, now)
	if err != nil {
		return Group{}, Member{}, err
	}
	mrec.Role = storedRole(RoleOwner)
	ev := Event{
		GroupID: g.ID, Type: EventGroupCreated, ActorID: in.Creator.UserID, At: now,
		Subject: Subject{Kind: SubjectGroup, ID: g.ID}, Changes: GroupChanges(nil, &g),
	}
	ev.seal(chainHead{})
	ledgerRec := ledgerRecord{
		itemKey:   itemKey{PK: groupPK(g.ID), SK: skLedger},
		MemberIDs: []string{in.Creator.UserID}, Events: ev.Seq, Head: ev.Hash, BooksBeside: true,
	}
	items := make([]types.TransactWriteItem, 0, 5)
	for _, rec := range []any{g.record(), ledgerRec, mrec, ev.record()} {
		put, err := s.putNew(rec, "group")
		if err != nil {
			return Group{}, Member{}, err
		}
		items = append(items, put)
	}
	if g.ChatID != "" {
		// The chat's item keeps one group per chat, as connectTelegramChat does.
		put, err := s.putChat(g.ChatID, g.ID)
		if err != nil {
			return Group{}, Member{}, err
		}
		items = append(items, put)
	}
	err = s.transactWrite(ctx, items)
	switch {
	case g.ChatID != "" && condFailedAt(err, len(items)-1):
		return Group{}, Member{}, conflictf("the chat is connected to another group")
	case err != nil:
		return Group{}, Member{}, fmt.Errorf("create group: %w", err)
	}
	s.tellCommitted(ev)
	m, err := mrec.member()
	return g, m, err
}
