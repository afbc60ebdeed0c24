package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Usage is what a user did on one UTC day, as counted for quotas.
type Usage struct {
	Day    string // "2006-01-02", UTC
	Reads  int64  // queries
	Writes int64  // mutations
}

// UsageDay is the layout of Usage.Day.
const UsageDay = time.DateOnly

// usageKeep is how long a day's counters outlive the day before TTL purges them.
const usageKeep = 48 * time.Hour

// usageRecord is the USER#<userId> / USAGE#<day> item, kept by atomic ADD.
type usageRecord struct {
	Reads  int64 `dynamodbav:"reads"`
	Writes int64 `dynamodbav:"writes"`
}

// AddUsage adds reads and writes to the user's counters of the day, in one
// atomic ADD that creates the item (with its ttl) on the day's first call,
// and returns the totals after it: every instance's counts together.
func (s *Store) AddUsage(ctx context.Context, userID, day string, reads, writes int64) (Usage, error) {
	d, err := time.Parse(UsageDay, day)
	if err != nil {
		return Usage{}, fmt.Errorf("usage day %q: %w", day, err)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      tableKey(userKey(userID), usageSK(day)),
		UpdateExpression:         aws.String("ADD #reads :r, #writes :w SET #ttl = :ttl"),
		ExpressionAttributeNames: map[string]string{"#reads": "reads", "#writes": "writes", "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":r": number(reads), ":w": number(writes), ":ttl": number(d.Add(24*time.Hour + usageKeep).Unix()),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return Usage{}, fmt.Errorf("add usage: %w", err)
	}
	var rec usageRecord
	if err := attributevalue.UnmarshalMap(out.Attributes, &rec); err != nil {
		return Usage{}, fmt.Errorf("decode usage: %w", err)
	}
	return Usage{Day: day, Reads: rec.Reads, Writes: rec.Writes}, nil
}

// GetUsage reads the user's counters of the day, strongly consistent; zero
// when nothing was counted yet.
func (s *Store) GetUsage(ctx context.Context, userID, day string) (Usage, error) {
	item, ok, err := s.getItem(ctx, userKey(userID), usageSK(day), true)
	if err != nil || !ok {
		return Usage{Day: day}, err
	}
	var rec usageRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return Usage{}, fmt.Errorf("decode usage: %w", err)
	}
	return Usage{Day: day, Reads: rec.Reads, Writes: rec.Writes}, nil
}
