package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tokenNotTouchedToday: the token is there and its lastUsedAt is not yet :today.
var tokenNotTouchedToday = condItemExists + " AND (" + attrNotExists(attrTokenLastUsedAt) +
	" OR " + attrTokenLastUsedAt + " < :today)"

// TouchToken records that the token with the given hash was used on day
// (UTC, DayLayout). It writes at most once per token and day: written
// reports whether this call wrote; false (and no error) means the token
// already had that day or a later one, or is gone.
func (s *Store) TouchToken(ctx context.Context, hash, day string) (written bool, err error) {
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       tableKey(tokenPK(hash), skToken),
		UpdateExpression:          aws.String("SET " + attrTokenLastUsedAt + " = :today"),
		ConditionExpression:       aws.String(tokenNotTouchedToday),
		ExpressionAttributeValues: map[string]types.AttributeValue{":today": str(day)},
	})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("touch token: %w", err)
	}
	return true, nil
}
