package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListSettlements pages through a group's settlements, newest first (access pattern 5).
func (s *Store) ListSettlements(ctx context.Context, groupID string, args PageArgs) (Page[Settlement], error) {
	return listPage(ctx, s, listQuery{
		list:    "settlements:" + groupID,
		keyCond: "PK = :pk AND begins_with(SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(groupPK(groupID)), ":prefix": str(prefixSettle)},
		keys:    tableKeys,
	}, args, (*settlementRecord).settlement)
}
