package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TakeChatSlot counts one message to chatID in the minute that holds at,
// shared by every instance (an atomic ADD on the condition that the count
// is below limit), and reports whether there was room: false means the
// minute is full and the message waits for the next one. Each instance's
// telegram.Limiter spaces its own sends; this counter keeps several
// instances together within Telegram's per-chat limit.
func (s *Store) TakeChatSlot(ctx context.Context, chatID string, at time.Time, limit int) (bool, error) {
	return s.takeSendSlot(ctx, chatID, at.UTC().Truncate(time.Minute).Format("2006-01-02T15:04"), at, limit)
}

// TakeBotSlot counts one message of the bot's, to any chat, in the second
// that holds at, shared by every instance, and reports whether there was
// room under limit (Telegram's overall limit of about 30 a second).
func (s *Store) TakeBotSlot(ctx context.Context, at time.Time, limit int) (bool, error) {
	return s.takeSendSlot(ctx, botRateScope, at.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05"), at, limit)
}

// botRateScope is the counter of every message the bot sends.
const botRateScope = "all"

// takeSendSlot adds one to the count of scope in period, on the condition
// that it is below limit; the counter expires an hour after at.
func (s *Store) takeSendSlot(ctx context.Context, scope, period string, at time.Time, limit int) (bool, error) {
	pk, sk := chatRateKey(scope, period)
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      tableKey(pk, sk),
		UpdateExpression:         aws.String("ADD #n :one SET #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_not_exists(#n) OR #n < :limit"),
		ExpressionAttributeNames: map[string]string{"#n": "sent", "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": number(1), ":limit": number(int64(limit)), ":ttl": number(at.Add(time.Hour).Unix()),
		},
	})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("count a message of %s: %w", scope, err)
	}
	return true, nil
}
