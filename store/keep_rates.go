package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/rates"
)

// KeepRates keeps q as its provider's rate table of day, on the condition
// that none is kept yet, and returns the kept table: q, or the one another
// instance kept first, so that every instance converts at the same figures
// all day.
func (s *Store) KeepRates(ctx context.Context, day string, q rates.Quotes) (rates.Quotes, error) {
	rec, err := rateTableRecordOf(day, q, s.now())
	if err != nil {
		return rates.Quotes{}, err
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return rates.Quotes{}, fmt.Errorf("encode kept rates: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item,
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	switch {
	case err == nil:
		return q, nil
	case IsCondCheckFailed(err):
		kept, found, err := s.KeptRates(ctx, day, q.Provider)
		if err != nil {
			return rates.Quotes{}, err
		}
		if !found { // purged between the two calls: only TTL does that, days later
			return q, nil
		}
		return kept, nil
	default:
		return rates.Quotes{}, fmt.Errorf("keep rates: %w", err)
	}
}
