package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// getItem reads one item by its table key; found is false if it does not
// exist, or belongs to an import not yet complete (import_gate.go).
func (s *Store) getItem(ctx context.Context, pk, sk string, consistent bool) (map[string]types.AttributeValue, bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            tableKey(pk, sk),
		ConsistentRead: &consistent,
	})
	if err != nil {
		return nil, false, fmt.Errorf("get %s %s: %w", pk, sk, err)
	}
	item, err := s.visible(ctx, out.Item)
	return item, item != nil, err
}
