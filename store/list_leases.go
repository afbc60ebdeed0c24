package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListLeases reads every shard lease of the stream (one partition),
// strongly consistent, all pages.
func (s *Store) ListLeases(ctx context.Context, stream string) ([]Lease, error) {
	pk, _ := leaseKey(stream, "")
	var leases []Lease
	err := s.queryPartition(ctx, pk, func(item map[string]types.AttributeValue) error {
		var rec leaseRecord
		if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
			return fmt.Errorf("decode lease: %w", err)
		}
		leases = append(leases, rec.lease(stream))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the leases of stream %s: %w", stream, err)
	}
	return leases, nil
}
