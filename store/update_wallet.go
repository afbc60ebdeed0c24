package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FieldWallet is the field a WALLET_CHANGED event records.
const FieldWallet = "wallet"

// UpdateWallet sets a member's TON wallet address; an empty wallet removes
// it. The member changes it themself: the WALLET_CHANGED event, written in
// the same transaction, names them, with the old and the new address. On
// condition that the wallet is still what was read, so that the event's
// "before" is true; setting the wallet it already has changes nothing.
func (s *Store) UpdateWallet(ctx context.Context, groupID, userID, wallet string) (Member, error) {
	m, err := s.getMember(ctx, groupID, userID, true)
	if err != nil {
		return Member{}, err
	}
	if m.Wallet == wallet {
		return m, nil
	}
	update := &types.Update{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(groupID), memberSK(userID)),
		ConditionExpression:       aws.String(walletUnchanged),
		ExpressionAttributeValues: map[string]types.AttributeValue{":was": str(m.Wallet)},
	}
	if m.Wallet == "" {
		update.ConditionExpression = aws.String(walletUnset)
		update.ExpressionAttributeValues = nil
	}
	if wallet == "" {
		update.UpdateExpression = aws.String("REMOVE " + attrWallet)
	} else {
		update.UpdateExpression = aws.String("SET " + attrWallet + " = :w")
		if update.ExpressionAttributeValues == nil {
			update.ExpressionAttributeValues = map[string]types.AttributeValue{}
		}
		update.ExpressionAttributeValues[":w"] = str(wallet)
	}
	changes := []Change{{Field: FieldWallet, Before: walletOrNil(userID, "b", m.Wallet), After: walletOrNil(userID, "a", wallet)}}
	ev := memberEvent(EventWalletChanged, groupID, userID, formatTime(s.stamp()), changes)
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{{Update: update}}, nil
	})
	switch {
	case condFailedAt(err, 1):
		return Member{}, conflictf("the wallet was changed meanwhile; reload and try again")
	case condFailedAt(err, 0):
		return Member{}, notFoundf("group %s", groupID)
	case err != nil:
		return Member{}, fmt.Errorf("update wallet: %w", err)
	}
	m.Wallet = wallet
	return m, nil
}

// The conditions of a wallet change: the membership is there with the
// wallet it was read with.
var (
	walletUnchanged = condItemExists + " AND " + attrWallet + " = :was"
	walletUnset     = condItemExists + " AND " + attrNotExists(attrWallet)
)
