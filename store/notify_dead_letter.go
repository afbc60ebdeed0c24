package store

import (
	"context"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/aws"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeadLetter is a message the notifier could not send after its retries,
// kept until `notify --replay` sends it again.
type DeadLetter struct {
	ID      string
	At      time.Time
	GroupID string
	ChatID  string // decimal int64: a group chat or a user's private chat
	Text    string // HTML, as it was to be sent
	// ButtonText and ButtonURL are its inline button ("" for none).
	ButtonText, ButtonURL string
	Reason                string // the last error
}

// deadLetterRecord is the NOTIFY#DEAD / <at>#<id> item. One partition holds
// them all so that the replay reads them with one Query (never a Scan);
// there are few, and they are written only when sending has failed.
type deadLetterRecord struct {
	itemKey
	ID         string `dynamodbav:"id"`
	At         string `dynamodbav:"at"`
	GroupID    string `dynamodbav:"groupId"`
	ChatID     string `dynamodbav:"chatId"`
	Text       string `dynamodbav:"text"`
	ButtonText string `dynamodbav:"buttonText,omitempty"`
	ButtonURL  string `dynamodbav:"buttonUrl,omitempty"`
	Reason     string `dynamodbav:"reason"`
}

// AddDeadLetter keeps d (its ID and At are set here) and returns it.
func (s *Store) AddDeadLetter(ctx context.Context, d DeadLetter) (DeadLetter, error) {
	d.ID, d.At = s.newID(), s.stamp()
	av, err := attributevalue.MarshalMap(deadLetterRecord{
		itemKey: itemKey{PK: pkDeadLetters, SK: deadLetterSK(formatTime(d.At), d.ID)},
		ID:      d.ID, At: formatTime(d.At), GroupID: d.GroupID, ChatID: d.ChatID, Text: d.Text,
		ButtonText: d.ButtonText, ButtonURL: d.ButtonURL, Reason: d.Reason,
	})
	if err != nil {
		return d, fmt.Errorf("encode dead letter: %w", err)
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av}); err != nil {
		return d, fmt.Errorf("add dead letter: %w", err)
	}
	return d, nil
}

// ListDeadLetters reads every dead letter, oldest first, all pages.
func (s *Store) ListDeadLetters(ctx context.Context) ([]DeadLetter, error) {
	var out []DeadLetter
	err := s.queryPartition(ctx, pkDeadLetters, func(item map[string]types.AttributeValue) error {
		var r deadLetterRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return fmt.Errorf("decode dead letter: %w", err)
		}
		at, err := parseTime(r.At)
		if err != nil {
			return fmt.Errorf("dead letter %s at: %w", r.ID, err)
		}
		out = append(out, DeadLetter{ID: r.ID, At: at, GroupID: r.GroupID, ChatID: r.ChatID, Text: r.Text,
			ButtonText: r.ButtonText, ButtonURL: r.ButtonURL, Reason: r.Reason})
		return nil
	})
	return out, err
}

// TakeDeadLetter removes d from the list before it is sent again, and
// reports whether this caller took it: false when another replay took it
// first (it must not be sent twice).
func (s *Store) TakeDeadLetter(ctx context.Context, d DeadLetter) (bool, error) {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: tableKey(pkDeadLetters, deadLetterSK(formatTime(d.At), d.ID)),
		ConditionExpression: aws.String(condItemExists),
	})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take dead letter: %w", err)
	}
	return true, nil
}
