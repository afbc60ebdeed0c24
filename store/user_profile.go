package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// UserProfile is what Telegram last told us about a user.
type UserProfile struct {
	UserID    string
	Name      string
	Username  string
	PhotoURL  string
	UpdatedAt time.Time
}

// userProfileRecord is the USER#<id> / PROFILE item.
type userProfileRecord struct {
	itemKey
	ID        string `dynamodbav:"id"`
	Name      string `dynamodbav:"name"`
	Username  string `dynamodbav:"username,omitempty"`
	PhotoURL  string `dynamodbav:"photoUrl,omitempty"`
	UpdatedAt string `dynamodbav:"updatedAt"`
}

// PutUserProfile records or replaces a user's profile.
func (s *Store) PutUserProfile(ctx context.Context, p UserProfile) error {
	av, err := attributevalue.MarshalMap(userProfileRecord{
		itemKey: itemKey{PK: userKey(p.UserID), SK: skProfile}, ID: p.UserID,
		Name: p.Name, Username: p.Username, PhotoURL: p.PhotoURL, UpdatedAt: formatTime(s.stamp()),
	})
	if err != nil {
		return fmt.Errorf("encode profile: %w", err)
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av}); err != nil {
		return fmt.Errorf("put profile: %w", err)
	}
	return nil
}

// GetUserProfile reads a user's profile.
func (s *Store) GetUserProfile(ctx context.Context, userID string) (UserProfile, error) {
	item, ok, err := s.getItem(ctx, userKey(userID), skProfile, false)
	if err != nil {
		return UserProfile{}, err
	}
	if !ok {
		return UserProfile{}, notFoundf("profile of user %s", userID)
	}
	ps, err := decodeAll([]map[string]types.AttributeValue{item}, func(r *userProfileRecord) (UserProfile, error) {
		t, err := parseTime(r.UpdatedAt)
		return UserProfile{UserID: r.ID, Name: r.Name, Username: r.Username, PhotoURL: r.PhotoURL, UpdatedAt: t}, err
	})
	if err != nil {
		return UserProfile{}, err
	}
	return ps[0], nil
}
