package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListLeases reads every shard lease of the stream (one partition),
// strongly consistent, all pages.
func (s *Store) ListLeases(ctx context.Context, stream string) ([]Lease, error) {
	pk, _ := leaseKey(stream, "")
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		ConsistentRead:            aws.Bool(true),
	}
	var leases []Lease
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list the leases of stream %s: %w", stream, err)
		}
		for _, item := range out.Items {
			var rec leaseRecord
			if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
				return nil, fmt.Errorf("decode lease: %w", err)
			}
			leases = append(leases, rec.lease(stream))
		}
		if len(out.LastEvaluatedKey) == 0 {
			return leases, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
