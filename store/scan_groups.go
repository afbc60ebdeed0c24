package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ScanGroupIDs lists every group in the table (a deleted one too, until its
// purge begins: a group half purged is the purge's to finish, not one to
// verify or rebuild). It scans the whole table, so it is for operators'
// tools, never for requests.
func (s *Store) ScanGroupIDs(ctx context.Context) ([]string, error) {
	var ids []string
	var start map[string]types.AttributeValue
	for {
		out, err := s.db.Scan(ctx, &dynamodb.ScanInput{
			TableName:                 &s.table,
			FilterExpression:          aws.String(attrSK + " = :meta AND " + attrNotExists(attrPurging)),
			ProjectionExpression:      aws.String(attrPK),
			ExpressionAttributeValues: map[string]types.AttributeValue{":meta": str(skMetadata)},
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("scan groups: %w", err)
		}
		for _, it := range out.Items {
			ids = append(ids, itemGroupID(it))
		}
		if len(out.LastEvaluatedKey) == 0 {
			return ids, nil
		}
		start = out.LastEvaluatedKey
	}
}
