package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// indexLookupConcurrency bounds the parallel GSI2 queries of one batch:
// unlike table keys, index keys cannot be read with BatchGetItem.
const indexLookupConcurrency = 8

// GetExpense reads an expense by id through GSI2 (access pattern 7).
func (s *Store) GetExpense(ctx context.Context, expenseID string) (Expense, error) {
	item, err := s.lookupGSI2(ctx, expenseGSI2PK(expenseID))
	if err != nil {
		return Expense{}, err
	}
	if item == nil {
		return Expense{}, notFoundf("expense %s", expenseID)
	}
	es, err := decodeAll([]map[string]types.AttributeValue{item}, (*expenseRecord).expense)
	if err != nil {
		return Expense{}, err
	}
	return es[0], nil
}

// GetExpenses reads many expenses, aligned with refs (nil where missing).
// Refs that carry the group and creation time are read by key in
// BatchGetItem calls; the rest are looked up by id through GSI2.
func (s *Store) GetExpenses(ctx context.Context, refs []ExpenseRef) ([]*Expense, error) {
	items, err := s.getByRefs(ctx, len(refs), func(i int) (string, map[string]types.AttributeValue) {
		r := refs[i]
		if r.GroupID == "" || r.CreatedAt.IsZero() {
			return expenseGSI2PK(r.ID), nil
		}
		return "", tableKey(groupPK(r.GroupID), expenseSK(formatTime(r.CreatedAt), r.ID))
	})
	if err != nil {
		return nil, err
	}
	return alignByID(items, refs, func(r ExpenseRef) string { return r.ID }, (*expenseRecord).expense, func(e *Expense) string { return e.ID })
}

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

// lookupGSI2 returns the one item whose GSI2PK is pk, or nil.
func (s *Store) lookupGSI2(ctx context.Context, pk string) (map[string]types.AttributeValue, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexGSI2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		Limit:                     aws.Int32(1),
	})
	if err != nil {
		return nil, fmt.Errorf("lookup %s: %w", pk, err)
	}
	if len(out.Items) == 0 {
		return nil, nil
	}
	return out.Items[0], nil
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
