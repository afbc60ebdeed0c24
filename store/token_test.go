package store_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCreateAndLookupToken(t *testing.T) {
	f := newFixture(t)
	expires := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	made, err := f.CreateToken(ctx, store.Token{Hash: "h1", UserID: "1", Name: "Ann", Label: "CI",
		Scopes: []string{"READ"}, ExpiresAt: expires})
	require.NoError(t, err)
	require.NotEmpty(t, made.ID)
	require.NotEqual(t, "h1", made.ID, "the public id is not the hash")

	got, err := f.LookupToken(ctx, "h1")
	require.NoError(t, err)
	require.Equal(t, made, got)
	require.Equal(t, []string{"READ"}, got.Scopes)
	require.Equal(t, expires, got.ExpiresAt)
	require.Empty(t, got.LastUsedAt)
	require.False(t, got.Expired(expires.Add(-time.Millisecond)))
	require.True(t, got.Expired(expires))

	// The table's TTL purges it once expired.
	out, err := dynamotestClient(t).GetItem(ctx, &dynamodb.GetItemInput{TableName: strPtr(f.Table()),
		Key: map[string]types.AttributeValue{"PK": s("TOKEN#h1"), "SK": s("TOKEN")}})
	require.NoError(t, err)
	require.Equal(t, &types.AttributeValueMemberN{Value: strconv.FormatInt(expires.Unix(), 10)}, out.Item["ttl"])

	_, err = f.CreateToken(ctx, store.Token{Hash: "h1", UserID: "2", Name: "Eve"})
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = f.LookupToken(ctx, "nope")
	require.ErrorIs(t, err, store.ErrNotFound)
}

// A token written before ids, scopes and expiry still reads: no scopes
// (every scope) and no expiry.
func TestLookupTokenWrittenBeforeScopes(t *testing.T) {
	f := newFixture(t)
	_, err := dynamotestClient(t).PutItem(ctx, &dynamodb.PutItemInput{TableName: strPtr(f.Table()), Item: map[string]types.AttributeValue{
		"PK": s("TOKEN#old"), "SK": s("TOKEN"), "GSI1PK": s("USER#1"), "GSI1SK": s("TOKEN#2024-01-01T00:00:00.000Z#old"),
		"userId": s("1"), "name": s("Ann"), "createdAt": s("2024-01-01T00:00:00.000Z"),
	}})
	require.NoError(t, err)
	got, err := f.LookupToken(ctx, "old")
	require.NoError(t, err)
	require.Equal(t, "1", got.UserID)
	require.Empty(t, got.Scopes)
	require.True(t, got.ExpiresAt.IsZero())
	require.False(t, got.Expired(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)))

	// Its public id is derived from its hash, one way, and the same on every read.
	require.NotEmpty(t, got.ID)
	require.NotContains(t, got.ID, "old")
	listed, err := f.ListUserTokens(ctx, "1")
	require.NoError(t, err)
	require.Equal(t, []store.Token{got}, listed)
	revoked, err := f.RevokeToken(ctx, "1", got.ID)
	require.NoError(t, err)
	require.Equal(t, "old", revoked.Hash)
	_, err = f.LookupToken(ctx, "old")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func strPtr(v string) *string { return &v }

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
