package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteLease deletes the lease of a shard the stream no longer has (its
// records past the stream's 24 hours), on the condition that it is still
// as l was read, so that the stream's lease partition does not grow with
// every shard ever read.
func (s *Store) DeleteLease(ctx context.Context, l Lease) error {
	pk, sk := leaseKey(l.Stream, l.Shard)
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: tableKey(pk, sk),
		ConditionExpression:       aws.String("#counter = :counter"),
		ExpressionAttributeNames:  map[string]string{"#counter": "counter"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":counter": number(l.Counter)},
	})
	if IsCondCheckFailed(err) {
		return fmt.Errorf("shard %s: %w", l.Shard, ErrLeaseLost)
	}
	if err != nil {
		return fmt.Errorf("delete the lease of shard %s: %w", l.Shard, err)
	}
	return nil
}
