package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fracti/api/payments"
)

// UserProfile is what Telegram last told us about a user.
type UserProfile struct {
	UserID    string
	Name      string
	Username  string
	PhotoURL  string
	UpdatedAt time.Time
	// PaymentHandles are the user's default payment handles, nil when none
	// (payment_handles.go).
	PaymentHandles *payments.Handles
}

// userProfileRecord is the USER#<id> / PROFILE item.
type userProfileRecord struct {
	itemKey
	ID        string     `dynamodbav:"id"`
	Name      string     `dynamodbav:"name"`
	Username  string     `dynamodbav:"username,omitempty"`
	PhotoURL  string     `dynamodbav:"photoUrl,omitempty"`
	UpdatedAt string     `dynamodbav:"updatedAt"`
	Pay       *payRecord `dynamodbav:"pay,omitempty"`
}

// PutUserProfile records or replaces what Telegram tells of a user. It
// updates those attributes alone, so that the profile's other ones (the
// default payment handles, payment_handles.go) stay.
func (s *Store) PutUserProfile(ctx context.Context, p UserProfile) error {
	sets := []string{"id = :id", "#name = :name", "updatedAt = :now"}
	var removes []string
	values := map[string]types.AttributeValue{
		":id": str(p.UserID), ":name": str(p.Name), ":now": str(formatTime(s.stamp())),
	}
	for _, a := range []struct{ attr, v string }{{attrUsername, p.Username}, {"photoUrl", p.PhotoURL}} {
		if a.v == "" {
			removes = append(removes, a.attr)
			continue
		}
		sets = append(sets, a.attr+" = :"+a.attr)
		values[":"+a.attr] = str(a.v)
	}
	update := "SET " + strings.Join(sets, ", ")
	if len(removes) > 0 {
		update += " REMOVE " + strings.Join(removes, ", ")
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(userKey(p.UserID), skProfile), UpdateExpression: &update,
		ExpressionAttributeNames: map[string]string{"#name": attrName}, ExpressionAttributeValues: values,
	})
	if err != nil {
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
		return UserProfile{UserID: r.ID, Name: r.Name, Username: r.Username, PhotoURL: r.PhotoURL, UpdatedAt: t,
			PaymentHandles: r.Pay.handles()}, err
	})
	if err != nil {
		return UserProfile{}, err
	}
	return ps[0], nil
}
