package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

// TonPaymentUsedBy names the settlement the TON payment (its transfer
// message's hash, hex) completed, or "" if none has.
func (s *Store) TonPaymentUsedBy(ctx context.Context, transfer string) (string, error) {
	item, ok, err := s.getItem(ctx, tonTxPK(transfer), skTonTx, true)
	if err != nil || !ok {
		return "", err
	}
	var r tonTxRecord
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return "", err
	}
	return r.SettlementID, nil
}
