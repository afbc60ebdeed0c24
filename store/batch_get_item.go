package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxBatchGet is DynamoDB's limit on the keys of one BatchGetItem.
const MaxBatchGet = 100

// batchGet reads the items at keys (table keys PK/SK), any number of them, in
// requests of at most MaxBatchGet keys, retrying keys DynamoDB left
// unprocessed. Missing items are simply absent from the result.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	return s.batchRead(ctx, keys, false)
}

// batchRead is batchGet with the choice of strongly consistent reads.
func (s *Store) batchRead(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for start := 0; start < len(keys); start += MaxBatchGet {
		pending := keys[start:min(start+MaxBatchGet, len(keys))]
		backoff := 20 * time.Millisecond
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, time.Second)
			}
			if attempt == 10 {
				return nil, fmt.Errorf("batch get: %d keys still unprocessed", len(pending))
			}
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems: map[string]types.KeysAndAttributes{s.table: {Keys: pending, ConsistentRead: aws.Bool(consistent)}},
			})
			if err != nil {
				return nil, fmt.Errorf("batch get: %w", err)
			}
			items = append(items, out.Responses[s.table]...)
			pending = out.UnprocessedKeys[s.table].Keys
		}
	}
	return items, nil
}

// getItem reads one item by its table key; found is false if it does not exist.
func (s *Store) getItem(ctx context.Context, pk, sk string, consistent bool) (map[string]types.AttributeValue, bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            tableKey(pk, sk),
		ConsistentRead: &consistent,
	})
	if err != nil {
		return nil, false, fmt.Errorf("get %s %s: %w", pk, sk, err)
	}
	return out.Item, out.Item != nil, nil
}

func tableKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(pk), attrSK: str(sk)}
}
