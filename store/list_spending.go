package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListSpending reads the group's spending summaries of the days from through
// to (DayLayout, both included), only those in currency when it is not "",
// in order of day, then currency. It is one Query however many expenses the
// days hold (another page only past 1 MB of summaries); summaries that count
// nothing any more are left out. A day's summary may be kept in more than
// one item (an import's own, spendImportSK): they are added up.
func (s *Store) ListSpending(ctx context.Context, groupID, from, to, currency string) ([]SpendingDay, error) {
	lo, hi := spendRange(from, to)
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(groupPK(groupID)), ":lo": str(lo), ":hi": str(hi),
		},
	}
	if currency != "" {
		// Filtered on the server: what another currency holds never travels.
		in.FilterExpression = aws.String("#cur = :cur")
		in.ExpressionAttributeNames = map[string]string{"#cur": attrSpendCurrency}
		in.ExpressionAttributeValues[":cur"] = str(currency)
	}
	var keys []spendKey
	sums := map[spendKey]figures{}
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query spending: %w", err)
		}
		items, err := s.hideUnfinished(ctx, out.Items)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			k, f, err := readSpendingItem(item)
			if err != nil {
				return nil, err
			}
			if sums[k] == nil {
				keys, sums[k] = append(keys, k), figures{}
			}
			sums[k].merge(f, 1)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	days := make([]SpendingDay, 0, len(keys))
	for _, k := range keys {
		if f := sums[k]; f[spendCount] != nil && f[spendCount].Sign() != 0 {
			d, err := spendingDay(groupID, k, f)
			if err != nil {
				return nil, err
			}
			days = append(days, d)
		}
	}
	return days, nil
}
