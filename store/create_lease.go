package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// CreateLease writes a shard's lease, held by nobody and with no
// checkpoint, stamped with its creation time, unless it exists already (another instance was first: not an
// error).
func (s *Store) CreateLease(ctx context.Context, stream, shardID, parentID string) error {
	pk, sk := leaseKey(stream, shardID)
	item, err := attributevalue.MarshalMap(leaseRecord{itemKey: itemKey{PK: pk, SK: sk}, Shard: shardID, Parent: parentID,
		Created: formatTime(s.stamp())})
	if err != nil {
		return fmt.Errorf("encode lease: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item, ConditionExpression: aws.String(attrNotExists(attrPK)),
	})
	if err != nil && !IsCondCheckFailed(err) {
		return fmt.Errorf("create the lease of shard %s: %w", shardID, err)
	}
	return nil
}
