package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/rates"
)

// KeptRates reads provider's rate table kept for day (strongly consistent,
// so an instance sees the table another just kept); found is false if none is.
func (s *Store) KeptRates(ctx context.Context, day, provider string) (rates.Quotes, bool, error) {
	item, ok, err := s.getItem(ctx, ratePK(day), rateSK(provider), true)
	if err != nil || !ok {
		return rates.Quotes{}, false, err
	}
	var rec rateTableRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return rates.Quotes{}, false, fmt.Errorf("decode kept rates: %w", err)
	}
	q, err := rec.quotes()
	return q, err == nil, err
}
