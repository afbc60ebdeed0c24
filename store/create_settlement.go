package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateSettlement records a payment between two members, on condition that
// both are members of the group. The store assigns id and creation time, and
// the completion time when it is created already completed.
func (s *Store) CreateSettlement(ctx context.Context, st Settlement) (Settlement, error) {
	st.ID = s.newID()
	st.CreatedAt = s.stamp()
	if st.Status == SettlementCompleted {
		st.CompletedAt = &st.CreatedAt
	}
	av, err := attributevalue.MarshalMap(st.record())
	if err != nil {
		return Settlement{}, fmt.Errorf("encode settlement: %w", err)
	}
	items := []types.TransactWriteItem{
		{ConditionCheck: s.membersCheck(st.GroupID, []string{st.FromUserID, st.ToUserID})},
		{Put: &types.Put{
			TableName: &s.table, Item: av,
			ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}},
	}
	err = s.transactWrite(ctx, items)
	switch {
	case condFailedAt(err, 0):
		return Settlement{}, notFoundf("group %s or one of the two members", st.GroupID)
	case err != nil:
		return Settlement{}, fmt.Errorf("create settlement: %w", err)
	}
	return st, nil
}
