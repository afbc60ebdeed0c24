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

// DeadLetter is a message the notifier could not send after its retries,
// kept until `notify --replay` sends it again.
type DeadLetter = Letter

// Letter is a message kept in one of the notifier's lists: the dead
// letters (NOTIFY#DEAD), or the outbox of messages queued to be sent
// (NOTIFY#OUTBOX).
type Letter struct {
	ID      string
	At      time.Time
	GroupID string
	ChatID  string // decimal int64: a group chat or a user's private chat
	Text    string // HTML, as it was to be sent
	// ButtonText and ButtonURL are its inline button ("" for none).
	ButtonText, ButtonURL string
	Reason                string // the last error
	// FallbackText is said in the group's chat instead when ChatID refuses
	// the bot for good (a debtor's reminder: a mention); "" for nothing.
	FallbackText string
	// Attempts counts the sends tried and failed (queued letters).
	Attempts int
}

// letterRecord is the NOTIFY#DEAD or NOTIFY#OUTBOX / <at>#<id> item. One
// partition holds each list so that it is read with one Query (never a
// Scan); there are few: dead letters are written only when sending has
// failed, and the outbox holds messages only until they are sent.
type letterRecord struct {
	itemKey
	ID           string `dynamodbav:"id"`
	At           string `dynamodbav:"at"`
	GroupID      string `dynamodbav:"groupId"`
	ChatID       string `dynamodbav:"chatId"`
	Text         string `dynamodbav:"text"`
	ButtonText   string `dynamodbav:"buttonText,omitempty"`
	ButtonURL    string `dynamodbav:"buttonUrl,omitempty"`
	Reason       string `dynamodbav:"reason"`
	FallbackText string `dynamodbav:"fallbackText,omitempty"`
	Attempts     int    `dynamodbav:"attempts,omitempty"`
}

func (s *Store) letterRecord(pk string, d *Letter) letterRecord {
	d.ID, d.At = s.newID(), s.stamp()
	return letterRecord{
		itemKey: itemKey{PK: pk, SK: deadLetterSK(formatTime(d.At), d.ID)},
		ID:      d.ID, At: formatTime(d.At), GroupID: d.GroupID, ChatID: d.ChatID, Text: d.Text,
		ButtonText: d.ButtonText, ButtonURL: d.ButtonURL, Reason: d.Reason,
		FallbackText: d.FallbackText, Attempts: d.Attempts,
	}
}

// AddDeadLetter keeps d (its ID and At are set here) and returns it.
func (s *Store) AddDeadLetter(ctx context.Context, d DeadLetter) (DeadLetter, error) {
	av, err := attributevalue.MarshalMap(s.letterRecord(pkDeadLetters, &d))
	if err != nil {
		return d, fmt.Errorf("encode dead letter: %w", err)
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av}); err != nil {
		return d, fmt.Errorf("add dead letter: %w", err)
	}
	return d, nil
}

// QueueLetters puts letters in the outbox (their IDs and At are set here)
// and returns them: all or none, in one TransactWriteItems per 100.
func (s *Store) QueueLetters(ctx context.Context, letters []Letter) ([]Letter, error) {
	out := append([]Letter(nil), letters...)
	items := make([]types.TransactWriteItem, 0, len(out))
	for i := range out {
		it, err := s.putNew(s.letterRecord(pkOutbox, &out[i]), "queued letter")
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	for len(items) > 0 {
		chunk := items[:min(len(items), maxTransactItems)]
		items = items[len(chunk):]
		if err := s.transactWrite(ctx, chunk); err != nil {
			return nil, fmt.Errorf("queue letters: %w", err)
		}
	}
	return out, nil
}

// ListDeadLetters reads every dead letter, oldest first, all pages.
func (s *Store) ListDeadLetters(ctx context.Context) ([]DeadLetter, error) {
	return s.listLetters(ctx, pkDeadLetters)
}

// ListQueued reads every letter in the outbox, oldest first, all pages.
func (s *Store) ListQueued(ctx context.Context) ([]Letter, error) {
	return s.listLetters(ctx, pkOutbox)
}

func (s *Store) listLetters(ctx context.Context, pk string) ([]Letter, error) {
	var out []Letter
	err := s.queryPartition(ctx, pk, func(item map[string]types.AttributeValue) error {
		var r letterRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return fmt.Errorf("decode letter: %w", err)
		}
		at, err := parseTime(r.At)
		if err != nil {
			return fmt.Errorf("letter %s at: %w", r.ID, err)
		}
		out = append(out, Letter{ID: r.ID, At: at, GroupID: r.GroupID, ChatID: r.ChatID, Text: r.Text,
			ButtonText: r.ButtonText, ButtonURL: r.ButtonURL, Reason: r.Reason,
			FallbackText: r.FallbackText, Attempts: r.Attempts})
		return nil
	})
	return out, err
}

// TakeDeadLetter removes d from the list before it is sent again, and
// reports whether this caller took it: false when another replay took it
// first (it must not be sent twice).
func (s *Store) TakeDeadLetter(ctx context.Context, d DeadLetter) (bool, error) {
	return s.takeLetter(ctx, pkDeadLetters, d)
}

// TakeQueued removes l from the outbox before it is sent, and reports
// whether this caller took it: false when another sender took it first (it
// must not be sent twice).
func (s *Store) TakeQueued(ctx context.Context, l Letter) (bool, error) {
	return s.takeLetter(ctx, pkOutbox, l)
}

func (s *Store) takeLetter(ctx context.Context, pk string, d Letter) (bool, error) {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: tableKey(pk, deadLetterSK(formatTime(d.At), d.ID)),
		ConditionExpression: aws.String(condItemExists),
	})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take letter: %w", err)
	}
	return true, nil
}
