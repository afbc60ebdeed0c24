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
// nothing any more are left out.
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
	var days []SpendingDay
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query spending: %w", err)
		}
		for _, item := range out.Items {
			k, f, err := readSpendingItem(item)
			if err != nil {
				return nil, err
			}
			if f[spendCount] == nil || f[spendCount].Sign() == 0 {
				continue
			}
			d, err := spendingDay(groupID, k, f)
			if err != nil {
				return nil, err
			}
			days = append(days, d)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return days, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
