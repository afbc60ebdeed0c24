package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// digestKeep bounds how long a queued line waits: a weekly digest's period
// and a margin for a job that could not run.
const digestKeep = 15 * 24 * time.Hour

// DigestLine is one change a digest member will read in their next digest,
// already written in their language.
type DigestLine struct {
	UserID  string
	GroupID string
	Seq     int64 // the event's
	Text    string
	// Language is the member's, which the digest's heading is written in.
	Language string
}

// digestLineRecord is the DIGEST#<kind> / <userId>#<groupId>#<seq> item.
type digestLineRecord struct {
	itemKey
	Text     string `dynamodbav:"text"`
	Language string `dynamodbav:"language,omitempty"`
	TTL      int64  `dynamodbav:"ttl"`
}

// QueueDigestLine adds a line to the queue of kind (a Digest: "daily" or
// "weekly"). Writing the same event's line twice leaves one.
func (s *Store) QueueDigestLine(ctx context.Context, kind string, l DigestLine) error {
	av, err := attributevalue.MarshalMap(digestLineRecord{
		itemKey: itemKey{PK: digestPK(kind), SK: digestSK(l.UserID, l.GroupID, l.Seq)},
		Text:    l.Text, Language: l.Language, TTL: s.stamp().Add(digestKeep).Unix(),
	})
	if err != nil {
		return fmt.Errorf("encode digest line: %w", err)
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av}); err != nil {
		return fmt.Errorf("queue digest line: %w", err)
	}
	return nil
}

// ListDigestLines reads the queue of kind, ordered by user, group and event
// (one Query, all pages).
func (s *Store) ListDigestLines(ctx context.Context, kind string) ([]DigestLine, error) {
	var out []DigestLine
	err := s.queryPartition(ctx, digestPK(kind), func(item map[string]types.AttributeValue) error {
		var r digestLineRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return fmt.Errorf("decode digest line: %w", err)
		}
		if user, group, seq, ok := parseDigestSK(r.SK); ok { // else not a line this version wrote
			out = append(out, DigestLine{UserID: user, GroupID: group, Seq: seq, Text: r.Text, Language: r.Language})
		}
		return nil
	})
	return out, err
}

// DeleteDigestLines removes lines once their digest was sent.
func (s *Store) DeleteDigestLines(ctx context.Context, kind string, lines []DigestLine) error {
	for _, l := range lines {
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: tableKey(digestPK(kind), digestSK(l.UserID, l.GroupID, l.Seq))})
		if err != nil {
			return fmt.Errorf("delete digest line: %w", err)
		}
	}
	return nil
}
