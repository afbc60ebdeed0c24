package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Stamp kinds: what a stamp makes happen once per period.
const (
	StampReminder       = "remind"        // remindDebtors, once a UTC day per group
	StampWeeklyReminder = "weekly-remind" // the weekly reminder, once an ISO week per group
	StampDigestDaily    = "digest-daily"  // a member's daily digest, once a UTC day
	StampDigestWeekly   = "digest-weekly" // a member's weekly digest, once an ISO week
)

// stampRecord is a GROUP#<groupId> or USER#<userId> / STAMP#<kind>#<period> item.
type stampRecord struct {
	itemKey
	At  string `dynamodbav:"at"`
	TTL int64  `dynamodbav:"ttl"`
}

// ClaimGroupStamp writes the group's stamp of kind for period on the
// condition that it is absent, and reports whether this call wrote it (the
// caller then does the period's work; false: someone did already). It
// lives for keep, past the period's end.
func (s *Store) ClaimGroupStamp(ctx context.Context, groupID, kind, period string, keep time.Duration) (bool, error) {
	return s.claimStamp(ctx, groupPK(groupID), stampSK(kind, period), keep)
}

// ClaimUserStamp is ClaimGroupStamp for a user's own timed messages (digests).
func (s *Store) ClaimUserStamp(ctx context.Context, userID, kind, period string, keep time.Duration) (bool, error) {
	return s.claimStamp(ctx, userKey(userID), stampSK(kind, period), keep)
}

// ReleaseGroupStamp removes a stamp whose work could not be done at all, so
// that a later attempt in the same period may try again.
func (s *Store) ReleaseGroupStamp(ctx context.Context, groupID, kind, period string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: tableKey(groupPK(groupID), stampSK(kind, period))})
	if err != nil {
		return fmt.Errorf("release stamp: %w", err)
	}
	return nil
}

func (s *Store) claimStamp(ctx context.Context, pk, sk string, keep time.Duration) (bool, error) {
	now := s.stamp()
	av, err := attributevalue.MarshalMap(stampRecord{itemKey: itemKey{PK: pk, SK: sk}, At: formatTime(now), TTL: now.Add(keep).Unix()})
	if err != nil {
		return false, fmt.Errorf("encode stamp: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av, ConditionExpression: aws.String(condItemAbsent)})
	if IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim stamp %s: %w", sk, err)
	}
	return true, nil
}
