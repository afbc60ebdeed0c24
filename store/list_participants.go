package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListParticipants reads an expense's participant records: every beneficiary
// other than the payer (access pattern 6).
func (s *Store) ListParticipants(ctx context.Context, groupID, expenseID string) ([]Share, error) {
	items, err := s.queryAll(ctx, listQuery{
		list:    "participants:" + expenseID,
		keyCond: "PK = :pk AND begins_with(SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(groupPK(groupID)), ":prefix": str(participantsPrefix(expenseID))},
		forward: true,
	})
	if err != nil {
		return nil, err
	}
	return decodeAll(items, (*participantRecord).share)
}
