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

// Token is a personal access token, known only by the SHA-256 hash of its
// secret value.
type Token struct {
	Hash      string
	UserID    string
	Name      string // the user's display name
	Username  string
	Label     string // what the token is for, e.g. "CI bot"
	CreatedAt time.Time
}

// tokenRecord is the TOKEN#<sha256> / TOKEN item, also listed under the user in GSI1.
type tokenRecord struct {
	itemKey
	UserID    string `dynamodbav:"userId"`
	Name      string `dynamodbav:"name"`
	Username  string `dynamodbav:"username,omitempty"`
	Label     string `dynamodbav:"label,omitempty"`
	CreatedAt string `dynamodbav:"createdAt"`
}

func (r *tokenRecord) token() (Token, error) {
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Token{}, fmt.Errorf("token createdAt: %w", err)
	}
	return Token{
		Hash: tokenHashFromPK(r.PK), UserID: r.UserID, Name: r.Name,
		Username: r.Username, Label: r.Label, CreatedAt: created,
	}, nil
}

// CreateToken stores a new token's hash for the user.
func (s *Store) CreateToken(ctx context.Context, t Token) (Token, error) {
	t.CreatedAt = s.stamp()
	ts := formatTime(t.CreatedAt)
	av, err := attributevalue.MarshalMap(tokenRecord{
		itemKey: itemKey{
			PK: tokenPK(t.Hash), SK: skToken,
			GSI1PK: userKey(t.UserID), GSI1SK: tokenGSI1SK(ts, t.Hash),
		},
		UserID: t.UserID, Name: t.Name, Username: t.Username, Label: t.Label, CreatedAt: ts,
	})
	if err != nil {
		return Token{}, fmt.Errorf("encode token: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: av,
		ConditionExpression: aws.String(condItemAbsent),
	})
	if IsCondCheckFailed(err) {
		return Token{}, conflictf("a token with this hash already exists")
	}
	if err != nil {
		return Token{}, fmt.Errorf("create token: %w", err)
	}
	return t, nil
}

// LookupToken finds the token with the given hash.
func (s *Store) LookupToken(ctx context.Context, hash string) (Token, error) {
	item, ok, err := s.getItem(ctx, tokenPK(hash), skToken, false)
	if err != nil {
		return Token{}, err
	}
	if !ok {
		return Token{}, notFoundf("token")
	}
	ts, err := decodeAll([]map[string]types.AttributeValue{item}, (*tokenRecord).token)
	if err != nil {
		return Token{}, err
	}
	return ts[0], nil
}
