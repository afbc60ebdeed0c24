package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxPageSize is the largest page a list query returns.
const MaxPageSize = 100

// PageArgs selects a page: the first First items after the item whose cursor is After.
type PageArgs struct {
	First int
	After string
}

// Page is one page of a list. Every item has its own cursor, so a client may
// continue after any of them.
type Page[T any] struct {
	Items       []T
	Cursors     []Cursor // one per item, encoded when asked for
	HasNext     bool     // exact: true only if at least one more item follows
	HasPrevious bool     // true when the page starts after a cursor
}

// listQuery describes one list: a key condition on the table or an index.
type listQuery struct {
	list    string // identity bound into the list's cursors
	index   string // "" for the table itself
	keyCond string
	values  map[string]types.AttributeValue
	filter  string // optional FilterExpression
	forward bool   // false: newest first
	// consistent reads strongly (table lists only), for lists a client reads
	// right after its own write, such as the history it just added to.
	consistent bool
	keys       []string // attributes of an item's position in this index
	// keep, when set, drops items after they are read (such as records of
	// groups the user has left); like filter, the page is still filled.
	keep func(ctx context.Context, items []map[string]types.AttributeValue) ([]bool, error)
}

var (
	tableKeys = []string{attrPK, attrSK}
	gsi1Keys  = []string{attrPK, attrSK, attrGSI1PK, attrGSI1SK}
	gsi3Keys  = []string{attrPK, attrSK, attrGSI3PK, attrGSI3SK}
)

// query runs q from args.After until it has args.First items and knows
// whether another follows. It asks for one item more than the page holds:
// DynamoDB hands back a LastEvaluatedKey whenever a page happens to end on the
// last item, so that key alone cannot tell whether anything follows.
func (s *Store) query(ctx context.Context, q listQuery, args PageArgs) ([]map[string]types.AttributeValue, []Cursor, bool, error) {
	first := min(max(args.First, 0), MaxPageSize)
	var start map[string]types.AttributeValue
	if args.After != "" {
		keys, err := s.cursors.decode(q.list, args.After, 1)
		if err != nil {
			return nil, nil, false, err
		}
		if start, err = startKey(keys[0], q.keys); err != nil {
			return nil, nil, false, err
		}
	}
	items, err := s.collect(ctx, q, start, first+1)
	if err != nil {
		return nil, nil, false, err
	}
	hasNext := len(items) > first
	items = items[:min(len(items), first)]
	cursors := make([]Cursor, len(items))
	for i, it := range items {
		cursors[i] = s.cursors.at(q.list, keyOf(it, q.keys))
	}
	return items, cursors, hasNext, nil
}

// collect reads up to n items of q starting after start, following
// LastEvaluatedKey across DynamoDB's 1 MB response pages and past items a
// filter drops (Limit counts items read, not items kept), and those of an
// import not yet complete (import_gate.go).
func (s *Store) collect(ctx context.Context, q listQuery, start map[string]types.AttributeValue, n int) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for len(items) < n {
		in := &dynamodb.QueryInput{
			TableName:                 &s.table,
			KeyConditionExpression:    &q.keyCond,
			ExpressionAttributeValues: q.values,
			ScanIndexForward:          aws.Bool(q.forward),
			ExclusiveStartKey:         start,
			Limit:                     aws.Int32(int32(n - len(items))),
		}
		if q.index != "" {
			in.IndexName = aws.String(q.index)
		}
		if q.filter != "" {
			in.FilterExpression = aws.String(q.filter)
		}
		if q.consistent {
			in.ConsistentRead = aws.Bool(true)
		}
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.list, err)
		}
		kept, err := s.hideUnfinished(ctx, out.Items)
		if err != nil {
			return nil, err
		}
		if q.keep != nil && len(kept) > 0 {
			read := kept
			ok, err := q.keep(ctx, read)
			if err != nil {
				return nil, err
			}
			kept = nil
			for i, it := range read {
				if ok[i] {
					kept = append(kept, it)
				}
			}
		}
		items = append(items, kept...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		start = out.LastEvaluatedKey
	}
	return items, nil
}

// decodePage unmarshals raw items into records and converts them.
func decodePage[R any, T any](items []map[string]types.AttributeValue, cursors []Cursor, hasNext bool, after string, conv func(*R) (T, error)) (Page[T], error) {
	out, err := decodeAll(items, conv)
	if err != nil {
		return Page[T]{}, err
	}
	return Page[T]{Items: out, Cursors: cursors, HasNext: hasNext, HasPrevious: after != ""}, nil
}

// decodeAll unmarshals raw items into records and converts them.
func decodeAll[R any, T any](items []map[string]types.AttributeValue, conv func(*R) (T, error)) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		var rec R
		if err := attributevalue.UnmarshalMap(it, &rec); err != nil {
			return nil, fmt.Errorf("decode item: %w", err)
		}
		v, err := conv(&rec)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// listPage runs a list query and decodes the page in one step.
func listPage[R any, T any](ctx context.Context, s *Store, q listQuery, args PageArgs, conv func(*R) (T, error)) (Page[T], error) {
	items, cursors, hasNext, err := s.query(ctx, q, args)
	if err != nil {
		return Page[T]{}, err
	}
	return decodePage(items, cursors, hasNext, args.After, conv)
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
