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

// unprocessedAttempts bounds the BatchGetItem calls spent on one request's
// keys while DynamoDB leaves some of them unprocessed.
const unprocessedAttempts = 10

// unprocessedBackoff is the first wait before asking again for unprocessed keys.
const unprocessedBackoff = 20 * time.Millisecond

// batchGet reads the items at keys (table keys PK/SK), any number of them, in
// requests of at most MaxBatchGet keys, retrying keys DynamoDB left
// unprocessed. Missing items are simply absent from the result.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	return s.batchRead(ctx, keys, false)
}

// batchRead is batchGet with the choice of strongly consistent reads.
// Items of an import not yet complete are left out (import_gate.go).
func (s *Store) batchRead(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool) ([]map[string]types.AttributeValue, error) {
	items, err := s.batchReadAll(ctx, keys, consistent)
	if err != nil {
		return nil, err
	}
	return s.hideUnfinished(ctx, items)
}

// batchReadAll is batchRead of every item found, the gate's own read.
func (s *Store) batchReadAll(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for start := 0; start < len(keys); start += MaxBatchGet {
		pending := keys[start:min(start+MaxBatchGet, len(keys))]
		err := retry(ctx, unprocessedAttempts, unprocessedBackoff, func() (bool, error) {
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems: map[string]types.KeysAndAttributes{s.table: {Keys: pending, ConsistentRead: aws.Bool(consistent)}},
			})
			if err != nil {
				return true, fmt.Errorf("batch get: %w", err)
			}
			items = append(items, out.Responses[s.table]...)
			pending = out.UnprocessedKeys[s.table].Keys
			if len(pending) > 0 {
				return false, fmt.Errorf("batch get: %d keys still unprocessed", len(pending))
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

// dedupeKeys drops repeated table keys: BatchGetItem refuses duplicates.
func dedupeKeys(keys []map[string]types.AttributeValue) []map[string]types.AttributeValue {
	seen := make(map[[2]string]bool, len(keys))
	out := keys[:0:0]
	for _, k := range keys {
		id := [2]string{keyAttr(k, attrPK), keyAttr(k, attrSK)}
		if !seen[id] {
			seen[id] = true
			out = append(out, k)
		}
	}
	return out
}
