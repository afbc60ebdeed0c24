package store_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
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
		"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID},
		"SK": &types.AttributeValueMemberS{Value: "INVITE!" + inv.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z") + "#" + inv.ID},
	}})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item, "keyed by its expiry, then its id")
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

// However many expired invites TTL has not purged yet, the list holds every
// live invite, and reads them with one Query that never touches the expired
// ones; used-up and revoked invites are left out too.
func TestLiveInvitesAreNotHiddenByExpiredOnes(t *testing.T) {
	c := testclock.At(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	calls := &dynamotest.Counter{}
	s := store.New(dynamotest.Client(t, calls.Option()), dynamotest.Table(t), store.Options{Now: c.Now})
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)

	minted := 0
	mint := func(life time.Duration, maxUses int) store.Invite {
		minted++
		inv, err := s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1", MaxUses: maxUses}, life, "hash-"+strconv.Itoa(minted))
		require.NoError(t, err)
		c.Add(time.Millisecond)
		return inv
	}
	// Live ones minted first, among, and after 150 that expire within the hour.
	live := []store.Invite{mint(30*24*time.Hour, 0)}
	for i := range 150 {
		mint(time.Minute+time.Duration(i)*time.Second, 0)
		if i == 75 {
			live = append(live, mint(2*time.Hour, 5))
		}
	}
	mint(2*time.Hour, 1)
	_, _, _, err = s.JoinWithInvite(ctx, "hash-"+strconv.Itoa(minted), user("2"))
	require.NoError(t, err, "uses the invite up")
	revoked := mint(2*time.Hour, 0)
	_, err = s.RevokeInvite(ctx, g.ID, revoked.ID, "1")
	require.NoError(t, err)
	live = append(live, mint(3*time.Hour, 0))

	c.Add(time.Hour)
	calls.Reset()
	listed, err := s.ListInvites(ctx, g.ID)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"Query": 1}, calls.ByOperation(), "one Query")
	require.Equal(t, 5, calls.ItemsScanned(), "it reads the unexpired invites only: the live ones, the used-up and the revoked one")
	ids := func(invs []store.Invite) []string {
		out := make([]string, len(invs))
		for i, inv := range invs {
			out[i] = inv.ID
		}
		return out
	}
	require.Equal(t, []string{live[2].ID, live[1].ID, live[0].ID}, ids(listed), "every live invite, newest first")
}

// Creating and revoking an invite are activity events in the same
// transaction as the invite, on the chain like any other; the event finds its
// invite by key, revoked or not, and carries nothing of the secret.
func TestInviteEvents(t *testing.T) {
	c := testclock.At(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{Now: c.Now})
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	_, _, err = s.JoinGroup(ctx, g.ID, user("2"))
	require.NoError(t, err)

	inv, err := s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1", MaxUses: 3}, time.Hour, "secret-hash")
	require.NoError(t, err)
	c.Add(time.Minute)
	revoked, err := s.RevokeInvite(ctx, g.ID, inv.ID, "2")
	require.NoError(t, err)
	require.Equal(t, c.Now(), *revoked.RevokedAt)
	_, err = s.RevokeInvite(ctx, g.ID, inv.ID, "2")
	require.ErrorIs(t, err, store.ErrNotFound, "revoked already")
	_, _, _, err = s.JoinWithInvite(ctx, "secret-hash", user("3"))
	require.ErrorIs(t, err, store.ErrInviteInvalid, "a revoked invite admits nobody")
	listed, err := s.ListInvites(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, listed)

	p, err := s.ListEvents(ctx, g.ID, store.PageArgs{First: 2})
	require.NoError(t, err)
	revokedEv, createdEv := p.Items[0], p.Items[1]
	require.Equal(t, store.EventInviteCreated, createdEv.Type)
	require.Equal(t, "1", createdEv.ActorID)
	expires, three := "2026-11-01T13:00:00.000Z", "3"
	require.Equal(t, []store.Change{{Field: "expiresAt", After: &expires}, {Field: "maxUses", After: &three}}, createdEv.Changes)
	require.Equal(t, store.EventInviteRevoked, revokedEv.Type)
	require.Equal(t, "2", revokedEv.ActorID)
	at := "2026-11-01T12:01:00.000Z"
	require.Equal(t, []store.Change{{Field: "revokedAt", After: &at}}, revokedEv.Changes)
	for _, ev := range []store.Event{createdEv, revokedEv} {
		require.NotContains(t, fmt.Sprint(ev), "secret-hash")
		ref, ok := ev.InviteRef()
		require.True(t, ok)
		got, err := s.GetInvites(ctx, []store.InviteRef{ref})
		require.NoError(t, err)
		require.Equal(t, revoked, *got[0], "the subject, as it is now")
	}
	broken, err := s.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)

	// Only a current member creates or revokes one; an unknown one is not found.
	_, err = s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "9"}, time.Hour, "other")
	require.ErrorIs(t, err, store.ErrNotFound)
	other, err := s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1"}, time.Hour, "other")
	require.NoError(t, err)
	_, err = s.RevokeInvite(ctx, g.ID, other.ID, "9")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.RevokeInvite(ctx, g.ID, "no-such-invite", "1")
	require.ErrorIs(t, err, store.ErrNotFound)
}

// Invites stored before expiry led their key (INVITE#<inviteId>) keep
// working until they expire: listed while live, joined with, revoked, and
// found by their events.
func TestInvitesKeyedTheOldWay(t *testing.T) {
	c := testclock.At(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	db := dynamotest.Client(t)
	table := dynamotest.Table(t)
	s := store.New(db, table, store.Options{Now: c.Now})
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	old := func(id, hash string, expires time.Time) {
		ts := func(t time.Time) *types.AttributeValueMemberS {
			return &types.AttributeValueMemberS{Value: t.UTC().Format("2006-01-02T15:04:05.000Z")}
		}
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "INVITE#" + id},
			"GSI2PK": &types.AttributeValueMemberS{Value: "INVITE#" + hash}, "GSI2SK": &types.AttributeValueMemberS{Value: g.ID},
			"id": &types.AttributeValueMemberS{Value: id}, "createdBy": &types.AttributeValueMemberS{Value: "1"},
			"createdAt": ts(c.Now()), "expiresAt": ts(expires), "uses": &types.AttributeValueMemberN{Value: "0"},
			"ttl":           &types.AttributeValueMemberN{Value: strconv.FormatInt(expires.Unix(), 10)},
			"formatVersion": &types.AttributeValueMemberN{Value: "2"},
		}})
		require.NoError(t, err)
	}
	// Ids from both ends of the hex range, so that they sort on either side
	// of the new keys' timestamps.
	old("0a4c7e2e-6f1f-4c55-9d1e-1c2b3a4d5e6f", "h-expired", c.Now().Add(time.Minute))
	old("fb1d3a9c-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "h-join", c.Now().Add(2*time.Hour))
	old("1c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f", "h-revoke", c.Now().Add(2*time.Hour))
	fresh, err := s.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1"}, 3*time.Hour, "h-new")
	require.NoError(t, err)
	c.Add(time.Hour)

	listed, err := s.ListInvites(ctx, g.ID)
	require.NoError(t, err)
	var ids []string
	for _, inv := range listed {
		ids = append(ids, inv.ID)
	}
	require.ElementsMatch(t, []string{"fb1d3a9c-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "1c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f", fresh.ID}, ids)

	_, inv, joined, err := s.JoinWithInvite(ctx, "h-join", user("2"))
	require.NoError(t, err)
	require.True(t, joined)
	require.Equal(t, 1, inv.Uses)
	revoked, err := s.RevokeInvite(ctx, g.ID, "1c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f", "2")
	require.NoError(t, err)
	_, _, _, err = s.JoinWithInvite(ctx, "h-revoke", user("3"))
	require.ErrorIs(t, err, store.ErrInviteInvalid)
	p, err := s.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	ref, ok := p.Items[0].InviteRef()
	require.True(t, ok)
	got, err := s.GetInvites(ctx, []store.InviteRef{ref})
	require.NoError(t, err)
	require.Equal(t, revoked, *got[0])
	_, err = s.RevokeInvite(ctx, g.ID, "0a4c7e2e-6f1f-4c55-9d1e-1c2b3a4d5e6f", "1")
	require.ErrorIs(t, err, store.ErrNotFound, "expired")
}
