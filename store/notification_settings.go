package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Digest is how often a member hears of a group's changes by direct message.
type Digest string

// The digest periods.
const (
	// DigestNone: a message at each change (the default).
	DigestNone Digest = "none"
	// DigestDaily: one message a day instead.
	DigestDaily Digest = "daily"
	// DigestWeekly: one message a week instead.
	DigestWeekly Digest = "weekly"
)

// Valid reports whether d is one of the digest periods.
func (d Digest) Valid() bool { return d == DigestNone || d == DigestDaily || d == DigestWeekly }

// digestOf reads a stored digest; absent (or unknown) is DigestNone.
func digestOf(s string) Digest {
	if d := Digest(s); d.Valid() {
		return d
	}
	return DigestNone
}

// Attributes of the membership's notification settings.
const (
	attrMuted    = "muted"
	attrDigest   = "digest"
	attrLanguage = "language"
)

// UpdateNotificationSettings sets a member's muted and digest (nil leaves one
// as it is) with one UpdateItem on condition that they are a member, and
// returns the membership as it is then. They are the member's own choice,
// not the group's business: no activity event.
func (s *Store) UpdateNotificationSettings(ctx context.Context, groupID, userID string, muted *bool, digest *Digest) (Member, error) {
	if digest != nil && !digest.Valid() {
		return Member{}, fmt.Errorf("digest %q is not none, daily or weekly", *digest)
	}
	if muted == nil && digest == nil {
		m, err := s.getMember(ctx, groupID, userID, true)
		if err == nil && !m.Active() {
			err = notFoundf("member %s of group %s", userID, groupID)
		}
		return m, err
	}
	var set []string
	values := map[string]types.AttributeValue{}
	if muted != nil {
		set = append(set, attrMuted+" = :muted")
		values[":muted"] = &types.AttributeValueMemberBOOL{Value: *muted}
	}
	if digest != nil {
		set = append(set, attrDigest+" = :digest")
		values[":digest"] = str(string(*digest))
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(userID)),
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ")),
		ConditionExpression:       aws.String(memberCurrent),
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf):
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	case err != nil:
		return Member{}, fmt.Errorf("update notification settings: %w", err)
	}
	ms, err := decodeAll([]map[string]types.AttributeValue{out.Attributes}, (*memberRecord).member)
	if err != nil {
		return Member{}, err
	}
	return ms[0], nil
}

// SetMemberLanguage keeps a member's Telegram language_code, on condition
// that it differs from the stored one (and that they are a member): the same
// language again, or no membership, changes nothing and is not an error.
// Callers compare with the membership they already read, so that an
// unchanged language costs no call at all.
func (s *Store) SetMemberLanguage(ctx context.Context, groupID, userID, language string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(userID)),
		UpdateExpression:          aws.String("SET #lang = :lang"),
		ConditionExpression:       aws.String(memberCurrent + " AND (" + attrNotExists("#lang") + " OR #lang <> :lang)"),
		ExpressionAttributeNames:  map[string]string{"#lang": attrLanguage}, // a reserved word
		ExpressionAttributeValues: map[string]types.AttributeValue{":lang": str(language)},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return fmt.Errorf("set member language: %w", err)
	}
	return nil
}

// directRecord is the USER#<userId> / DIRECT item: whether the bot may
// write to the user in private.
type directRecord struct {
	itemKey
	Allowed bool `dynamodbav:"allowed"`
}

// SetDirectMessages records whether the bot may write to the user privately:
// true when they /start it, false after Telegram refused (403) a message
// to their private chat.
func (s *Store) SetDirectMessages(ctx context.Context, userID string, allowed bool) error {
	item, err := attributevalue.MarshalMap(directRecord{itemKey: itemKey{PK: userKey(userID), SK: skDirect}, Allowed: allowed})
	if err != nil {
		return fmt.Errorf("encode direct messages: %w", err)
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item}); err != nil {
		return fmt.Errorf("set direct messages: %w", err)
	}
	return nil
}

// DirectMessagesAllowed answers for many users at once (BatchGetItem, one
// call per 100): a user never recorded is allowed.
func (s *Store) DirectMessagesAllowed(ctx context.Context, userIDs []string) (map[string]bool, error) {
	out := make(map[string]bool, len(userIDs))
	keys := make([]map[string]types.AttributeValue, 0, len(userIDs))
	for _, id := range userIDs {
		out[id] = true
		keys = append(keys, directMessagesKey(id))
	}
	items, err := s.batchGet(ctx, dedupeKeys(keys))
	if err != nil {
		return nil, err
	}
	for _, item := range items {
		var r directRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return nil, fmt.Errorf("decode direct messages: %w", err)
		}
		out[strings.TrimPrefix(r.PK, prefixUser)] = r.Allowed
	}
	return out, nil
}
