package store_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/dynamotest"
	"github.com/fracti/api/internal/testclock"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestInviteExpiresOnRead(t *testing.T) {
	c := testclock.At(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{Now: c.Now})
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)

	inv, err := s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1"}, time.Hour, "hash-1")
	require.NoError(t, err)
	require.Equal(t, c.Now().Add(time.Hour), inv.ExpiresAt)
	live, err := s.ListInvites(ctx, g.ID)
	require.NoError(t, err)
	require.Len(t, live, 1)

	// Past its expiry it is gone from the list and admits nobody, though
	// TTL deletion has not removed the item yet.
	c.Add(time.Hour)
	live, err = s.ListInvites(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, live)
	_, _, _, err = s.JoinWithInvite(ctx, "hash-1", user("2"))
	require.ErrorIs(t, err, store.ErrInviteInvalid)
	_, _, _, err = s.JoinWithInvite(ctx, "no-such-hash", user("2"))
	require.ErrorIs(t, err, store.ErrInviteInvalid)

	// Even a lookup that raced the clock is refused by the transaction's condition.
	c.Add(-time.Minute)
	_, _, _, err = s.JoinWithInvite(ctx, "hash-1", user("2"))
	require.NoError(t, err, "one minute before expiry it admits")
}

func TestInviteItem(t *testing.T) {
	db := dynamotest.Client(t)
	table := dynamotest.Table(t)
	s := store.New(db, table, store.Options{})
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	inv, err := s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1", MaxUses: 2}, 24*time.Hour, "0123abcd")
	require.NoError(t, err)

	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "INVITE#" + inv.ID},
	}})
	require.NoError(t, err)
	require.Equal(t, "INVITE#0123abcd", out.Item["GSI2PK"].(*types.AttributeValueMemberS).Value, "found by the hash through GSI2")
	require.Equal(t, g.ID, out.Item["GSI2SK"].(*types.AttributeValueMemberS).Value)
	require.Equal(t, "2", out.Item["maxUses"].(*types.AttributeValueMemberN).Value)
	ttl, err := strconv.ParseInt(out.Item["ttl"].(*types.AttributeValueMemberN).Value, 10, 64)
	require.NoError(t, err)
	require.InDelta(t, inv.ExpiresAt.Unix(), ttl, 1, "purged by TTL once expired")

	// Only a current member may create one.
	_, err = s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "2"}, time.Hour, "other")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestGroupsCreatedBeforeJoinByIDSetting(t *testing.T) {
	db := dynamotest.Client(t)
	table := dynamotest.Table(t)
	open := store.New(db, table, store.Options{})
	closed := store.New(db, table, store.Options{LegacyGroupsClosed: true})

	legacy, _, err := open.CreateGroup(ctx, store.NewGroup{Title: "Old", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	// A group written before the setting existed has no joinByIdAllowed.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "GROUP#" + legacy.ID}, "SK": &types.AttributeValueMemberS{Value: "METADATA"},
	}, UpdateExpression: aws.String("REMOVE joinByIdAllowed")})
	require.NoError(t, err)
	fresh, _, err := open.CreateGroup(ctx, store.NewGroup{Title: "New", Currency: usd, Creator: user("1")})
	require.NoError(t, err)

	_, _, err = closed.JoinGroupByID(ctx, legacy.ID, user("2"))
	require.ErrorIs(t, err, store.ErrNotFound, "the operator closed old groups")
	_, _, err = open.JoinGroupByID(ctx, fresh.ID, user("2"))
	require.ErrorIs(t, err, store.ErrNotFound, "new groups admit by invite only")
	_, joined, err := open.JoinGroupByID(ctx, legacy.ID, user("2"))
	require.NoError(t, err, "old groups keep working as they did")
	require.True(t, joined)

	g, err := open.CurrentGroup(ctx, legacy.ID)
	require.NoError(t, err)
	require.Nil(t, g.JoinByID)
	require.True(t, open.AdmitsByID(g))
	require.False(t, closed.AdmitsByID(g))
}
