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
	minute := at.UTC().Truncate(time.Minute)
	pk, sk := chatRateKey(chatID, minute.Format("2006-01-02T15:04"))
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      tableKey(pk, sk),
		UpdateExpression:         aws.String("ADD #n :one SET #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_not_exists(#n) OR #n < :limit"),
		ExpressionAttributeNames: map[string]string{"#n": "sent", "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": number(1), ":limit": number(int64(limit)), ":ttl": number(minute.Add(time.Hour).Unix()),
		},
	})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("count a message to chat %s: %w", chatID, err)
	}
	return true, nil
}
