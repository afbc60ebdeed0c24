package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Reading expenses and settlements by ref: by table key when the ref knows
// the item's group and time, otherwise by id through GSI2.

// indexLookupConcurrency bounds the parallel GSI2 queries of one batch:
// unlike table keys, index keys cannot be read with BatchGetItem. A loader's
// batch holds at most MaxBatchGet refs, so all of its lookups go out in one
// wave (eight at a time made 50 lookups 7 round trips long).
const indexLookupConcurrency = MaxBatchGet

// getByRefs reads n items, each either by table key or by a GSI2 partition
// key as locate decides, and returns whatever exists.
func (s *Store) getByRefs(ctx context.Context, n int, locate func(i int) (gsi2PK string, key map[string]types.AttributeValue)) ([]map[string]types.AttributeValue, error) {
	var keys []map[string]types.AttributeValue
	var lookups []string
	for i := range n {
		pk, key := locate(i)
		if key != nil {
			keys = append(keys, key)
		} else {
			lookups = append(lookups, pk)
		}
	}
	items, err := s.batchGet(ctx, dedupeKeys(keys))
	if err != nil {
		return nil, err
	}
	found := make([]map[string]types.AttributeValue, len(lookups))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(indexLookupConcurrency)
	for i, pk := range lookups {
		g.Go(func() error {
			item, err := s.lookupGSI2(gctx, pk)
			found[i] = item
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, it := range found {
		if it != nil {
			items = append(items, it)
		}
	}
	return items, nil
}

// lookupGSI2 returns the one item whose GSI2PK is pk, or nil (also while
// the import that wrote it is not complete).
func (s *Store) lookupGSI2(ctx context.Context, pk string) (map[string]types.AttributeValue, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexGSI2),
		KeyConditionExpression:    aws.String(gsi2IDCond),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		Limit:                     aws.Int32(1),
	})
	if err != nil {
		return nil, fmt.Errorf("lookup %s: %w", pk, err)
	}
	if len(out.Items) == 0 {
		return nil, nil
	}
	return s.visible(ctx, out.Items[0])
}

// alignByID decodes items and lines them up with refs by id.
func alignByID[Ref any, R any, T any](items []map[string]types.AttributeValue, refs []Ref, refID func(Ref) string, conv func(*R) (T, error), id func(*T) string) ([]*T, error) {
	decoded, err := decodeAll(items, conv)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*T, len(decoded))
	for i := range decoded {
		byID[id(&decoded[i])] = &decoded[i]
	}
	out := make([]*T, len(refs))
	for i, r := range refs {
		out[i] = byID[refID(r)]
	}
	return out, nil
}
