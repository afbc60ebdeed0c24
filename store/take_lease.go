package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TakeLease makes owner the holder of l, on the condition that the lease is
// still as l was read (its counter): a free lease, an expired one, or one
// its holder gives up. It returns the lease as written, or ErrLeaseLost.
func (s *Store) TakeLease(ctx context.Context, l Lease, owner string) (Lease, error) {
	return s.updateLease(ctx, l, "SET #owner = :owner, #counter = #counter + :one, #hb = :now",
		"#counter = :counter", map[string]types.AttributeValue{":owner": str(owner)})
}

// RenewLease tells the other instances that l's holder is alive: its
// counter goes up, on the condition that l.Owner still holds it and nobody
// renewed or took it since it was read. It returns the lease as written, or
// ErrLeaseLost (the holder must stop reading the shard).
func (s *Store) RenewLease(ctx context.Context, l Lease) (Lease, error) {
	return s.updateLease(ctx, l, "SET #counter = #counter + :one, #hb = :now",
		"#counter = :counter AND #owner = :owner", map[string]types.AttributeValue{":owner": str(l.Owner)})
}

// ReleaseLease gives l up (a shutdown, or an instance holding more than its
// share), on the same condition as RenewLease, so that another instance may
// take it at once rather than after the timeout.
func (s *Store) ReleaseLease(ctx context.Context, l Lease) (Lease, error) {
	return s.updateLease(ctx, l, "SET #counter = #counter + :one, #hb = :now REMOVE #owner",
		"#counter = :counter AND #owner = :owner", map[string]types.AttributeValue{":owner": str(l.Owner)})
}

// updateLease runs one conditional update of a lease and decodes the result.
func (s *Store) updateLease(ctx context.Context, l Lease, update, cond string, values map[string]types.AttributeValue) (Lease, error) {
	pk, sk := leaseKey(l.Stream, l.Shard)
	values[":counter"], values[":one"], values[":now"] = number(l.Counter), number(1), str(formatTime(s.stamp()))
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(pk, sk),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(attrExists(attrPK) + " AND " + cond),
		ExpressionAttributeNames:  map[string]string{"#owner": "owner", "#counter": "counter", "#hb": "heartbeat"},
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if IsCondCheckFailed(err) {
		return Lease{}, fmt.Errorf("shard %s: %w", l.Shard, ErrLeaseLost)
	}
	if err != nil {
		return Lease{}, fmt.Errorf("update the lease of shard %s: %w", l.Shard, err)
	}
	var rec leaseRecord
	if err := attributevalue.UnmarshalMap(out.Attributes, &rec); err != nil {
		return Lease{}, fmt.Errorf("decode lease: %w", err)
	}
	return rec.lease(l.Stream), nil
}
