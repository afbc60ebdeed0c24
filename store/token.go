package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	ID        string // public id (not the hash): what the API lists and revokes tokens by
	UserID    string
	Name      string // the user's display name
	Username  string
	Label     string // what the token is for, e.g. "CI bot"
	CreatedAt time.Time
	// Scopes are what the token may do ("READ", "WRITE"); empty on tokens
	// written before scopes, which may do everything.
	Scopes []string
	// ExpiresAt is when the token stops working; zero means never.
	ExpiresAt time.Time
	// LastUsedAt is the UTC day ("2006-01-02") the token was last used on, "" if never.
	LastUsedAt string
}

// DayLayout is how a UTC day is written, as in Token.LastUsedAt.
const DayLayout = "2006-01-02"

// tokenRecord is the TOKEN#<sha256> / TOKEN item, also listed under the user in GSI1.
type tokenRecord struct {
	itemKey
	ID         string   `dynamodbav:"id,omitempty"`
	UserID     string   `dynamodbav:"userId"`
	Name       string   `dynamodbav:"name"`
	Username   string   `dynamodbav:"username,omitempty"`
	Label      string   `dynamodbav:"label,omitempty"`
	CreatedAt  string   `dynamodbav:"createdAt"`
	Scopes     []string `dynamodbav:"scopes,omitempty"`
	ExpiresAt  string   `dynamodbav:"expiresAt,omitempty"`
	LastUsedAt string   `dynamodbav:"lastUsedAt,omitempty"`
	TTL        int64    `dynamodbav:"ttl,omitempty"` // ExpiresAt in epoch seconds: the table's TTL purges expired tokens
}

// Attributes of a token that expressions name.
const (
	attrTokenUserID     = "userId"
	attrTokenLastUsedAt = "lastUsedAt"
)

func (r *tokenRecord) token() (Token, error) {
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Token{}, fmt.Errorf("token createdAt: %w", err)
	}
	hash := tokenHashFromPK(r.PK)
	id := r.ID
	if id == "" {
		id = legacyTokenID(hash)
	}
	t := Token{
		Hash: hash, ID: id, UserID: r.UserID, Name: r.Name,
		Username: r.Username, Label: r.Label, CreatedAt: created,
		Scopes: r.Scopes, LastUsedAt: r.LastUsedAt,
	}
	if r.ExpiresAt != "" {
		if t.ExpiresAt, err = parseTime(r.ExpiresAt); err != nil {
			return Token{}, fmt.Errorf("token expiresAt: %w", err)
		}
	}
	return t, nil
}

// legacyTokenID is the public id of a token written before ids: derived
// from its hash one way, so that it names the token without revealing the
// hash, and the same on every read.
func legacyTokenID(hash string) string {
	sum := sha256.Sum256([]byte("fracti access token id\x00" + hash))
	return "t" + hex.EncodeToString(sum[:16])
}

// Expired reports whether the token has expired at now.
func (t Token) Expired(now time.Time) bool {
	return !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)
}

// CreateToken stores a new token's hash for the user, with a new public id.
func (s *Store) CreateToken(ctx context.Context, t Token) (Token, error) {
	t.CreatedAt = s.stamp()
	t.ID = s.newID()
	ts := formatTime(t.CreatedAt)
	rec := tokenRecord{
		itemKey: itemKey{
			PK: tokenPK(t.Hash), SK: skToken,
			GSI1PK: userKey(t.UserID), GSI1SK: tokenGSI1SK(ts, t.Hash),
		},
		ID: t.ID, UserID: t.UserID, Name: t.Name, Username: t.Username, Label: t.Label, CreatedAt: ts,
		Scopes: t.Scopes,
	}
	if !t.ExpiresAt.IsZero() {
		t.ExpiresAt = t.ExpiresAt.UTC().Truncate(time.Millisecond)
		rec.ExpiresAt, rec.TTL = formatTime(t.ExpiresAt), t.ExpiresAt.Unix()
	}
	av, err := attributevalue.MarshalMap(rec)
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

// LookupToken finds the token with the given hash, with a strongly
// consistent read. An expired token is still returned (see Token.Expired),
// so that the caller can say so.
func (s *Store) LookupToken(ctx context.Context, hash string) (Token, error) {
	item, ok, err := s.getItem(ctx, tokenPK(hash), skToken, true)
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
