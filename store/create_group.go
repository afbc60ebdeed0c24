package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
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
}

// CreateGroup writes a group, its ledger and its first member in one transaction.
func (s *Store) CreateGroup(ctx context.Context, in NewGroup) (Group, Member, error) {
	now := s.stamp()
	g := Group{
		ID: s.newID(), ChatID: in.ChatID, Title: in.Title, Currency: in.Currency,
		CreatedAt: now, MemberCount: 1, SettlementConfirmation: in.SettlementConfirmation,
	}
	if g.SettlementConfirmation == "" {
		g.SettlementConfirmation = ConfirmByRecipient
	}
	mrec, err := newMemberRecord(g.ID, in.Creator, now)
	if err != nil {
		return Group{}, Member{}, err
	}
	items := make([]types.TransactWriteItem, 0, 3)
	for _, rec := range []any{g.record(), ledgerRecord{PK: groupPK(g.ID), SK: skLedger, MemberIDs: []string{in.Creator.UserID}}, mrec} {
		av, err := attributevalue.MarshalMap(rec)
		if err != nil {
			return Group{}, Member{}, fmt.Errorf("encode group: %w", err)
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table, Item: av,
			ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}})
	}
	if err := s.transactWrite(ctx, items); err != nil {
		return Group{}, Member{}, fmt.Errorf("create group: %w", err)
	}
	m, err := mrec.member()
	return g, m, err
}
