package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

const (
	createInvite = `mutation($g: ID!, $in: CreateInviteInput) { createInvite(groupId: $g, input: $in) {
		id secret link createdBy { userId } createdAt expiresAt maxUses uses placeholder { userId } } }`
	joinWithInvite = `mutation($i: String!) { joinGroup(invite: $i) { id userId group { id memberCount } } }`
	groupInvites   = `query($g: ID!) { group(id: $g) { joinByIdAllowed invites { id secret link uses maxUses createdBy { userId } } } }`
)

type inviteRow struct {
	ID, CreatedAt, ExpiresAt string
	Secret, Link             *string
	MaxUses                  *int
	Uses                     int
	CreatedBy                struct{ UserID string }
	Placeholder              *struct{ UserID string }
}

func newInvite(t *testing.T, u *apitest.User, group string, in map[string]any) inviteRow {
	t.Helper()
	var out struct{ CreateInvite inviteRow }
	u.Must(&out, createInvite, "g", group, "in", in)
	return out.CreateInvite
}

func TestInviteLifecycle(t *testing.T) {
	api := apitest.New(t)
	alice, bob, carol := api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	group := alice.CreateGroup("Trip")

	inv := newInvite(t, alice, group, nil)
	require.NotNil(t, inv.Secret)
	require.True(t, strings.HasPrefix(*inv.Secret, "inv_"), *inv.Secret)
	require.Nil(t, inv.Link, "no link without TELEGRAM_BOT_USERNAME and TELEGRAM_APP_NAME")
	require.Nil(t, inv.MaxUses)
	require.Equal(t, "111", inv.CreatedBy.UserID)
	created, err := time.Parse(time.RFC3339, inv.CreatedAt)
	require.NoError(t, err)
	expires, err := time.Parse(time.RFC3339, inv.ExpiresAt)
	require.NoError(t, err)
	require.Equal(t, 7*24*time.Hour, expires.Sub(created), "a week by default")
	require.True(t, strings.HasPrefix(inv.ID, group+":"))

	// The stored item holds the secret's hash only.
	var listed struct {
		Group struct {
			JoinByIDAllowed bool
			Invites         []inviteRow
		}
	}
	alice.Must(&listed, groupInvites, "g", group)
	require.False(t, listed.Group.JoinByIDAllowed, "new groups admit by invite only")
	require.Len(t, listed.Group.Invites, 1)
	require.Nil(t, listed.Group.Invites[0].Secret, "the secret is shown once")
	require.Nil(t, listed.Group.Invites[0].Link)

	var joined struct {
		JoinGroup struct {
			ID, UserID string
			Group      struct {
				ID          string
				MemberCount int
			}
		}
	}
	bob.Must(&joined, joinWithInvite, "i", *inv.Secret)
	require.Equal(t, group+":222", joined.JoinGroup.ID)
	require.Equal(t, 2, joined.JoinGroup.Group.MemberCount)
	bob.Must(&joined, joinWithInvite, "i", *inv.Secret) // again: no use spent
	bob.Must(&listed, groupInvites, "g", group)
	require.Equal(t, 1, listed.Group.Invites[0].Uses)

	// Any member may revoke it; then it admits nobody.
	var revoked struct{ RevokeInvite string }
	bob.Must(&revoked, `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", inv.ID)
	require.Equal(t, inv.ID, revoked.RevokeInvite)
	res := carol.Fails("NOT_FOUND", joinWithInvite, "i", *inv.Secret)
	require.NotContains(t, res.Errors[0].Message, group)
	alice.Must(&listed, groupInvites, "g", group)
	require.Empty(t, listed.Group.Invites)
	bob.Fails("NOT_FOUND", `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", inv.ID)

	// The bounds of the input.
	for _, in := range []map[string]any{{"expiresIn": 59}, {"expiresIn": 30*24*3600 + 1}, {"maxUses": 0}, {"maxUses": 1001}, {"placeholderId": "111"}} {
		res := alice.Fails("BAD_USER_INPUT", createInvite, "g", group, "in", in)
		require.NotEmpty(t, res.Field(), "%v", in)
	}
}

// An expired, revoked, used-up or unknown invite answers alike, and never
// names the group.
func TestInvalidInvitesAnswerAlike(t *testing.T) {
	api := apitest.New(t)
	alice, bob, carol := api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	group := alice.CreateGroup("Trip")
	usedUp := newInvite(t, alice, group, map[string]any{"maxUses": 1})
	bob.Must(nil, joinWithInvite, "i", *usedUp.Secret)
	revoked := newInvite(t, alice, group, nil)
	alice.Must(nil, `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", revoked.ID)

	var messages []string
	for _, secret := range []string{*usedUp.Secret, *revoked.Secret, "inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "not an invite", ""} {
		res := carol.Fails("NOT_FOUND", joinWithInvite, "i", secret)
		require.Nil(t, res.Errors[0].Extensions["group"])
		require.NotContains(t, res.Errors[0].Message, group)
		messages = append(messages, res.Errors[0].Message)
	}
	for _, m := range messages {
		require.Equal(t, messages[0], m, "every invalid invite gets the same answer")
	}
	var g struct{ Group *struct{ ID string } }
	carol.Must(&g, `query($g: ID!) { group(id: $g) { id } }`, "g", group)
	require.Nil(t, g.Group, "Carol got in nowhere")
}

// Twenty joins race for an invite with three uses: exactly three get in.
func TestInviteUsesAreCountedAtomically(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	inv := newInvite(t, alice, group, map[string]any{"maxUses": 3})

	users := make([]*apitest.User, 20)
	for i := range users {
		users[i] = api.User(fmt.Sprint(1000+i), fmt.Sprintf("User %d", i))
	}
	codes := make([]string, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = u.Do(joinWithInvite, "i", *inv.Secret).Code()
		}()
	}
	wg.Wait()
	admitted := 0
	for _, c := range codes {
		switch c {
		case "":
			admitted++
		default:
			require.Equal(t, "NOT_FOUND", c)
		}
	}
	require.Equal(t, 3, admitted)

	var out struct {
		Group struct {
			MemberCount int
			Members     struct{ Nodes []struct{ UserID string } }
		}
	}
	alice.Must(&out, `query($g: ID!) { group(id: $g) { memberCount members(first: 100) { nodes { userId } } } }`, "g", group)
	require.Equal(t, 4, out.Group.MemberCount)
	require.Len(t, out.Group.Members.Nodes, 4)
	var listed struct{ Group struct{ Invites []inviteRow } }
	alice.Must(&listed, groupInvites, "g", group)
	require.Empty(t, listed.Group.Invites, "a used-up invite is not live")
}

// An invite to group A admits to A only, and nobody outside A sees or
// revokes it.
func TestAnInviteBelongsToItsGroup(t *testing.T) {
	api := apitest.New(t)
	alice, bob, carol := api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	groupA := alice.CreateGroup("A")
	groupB := bob.CreateGroup("B")
	invA := newInvite(t, alice, groupA, nil)
	newInvite(t, bob, groupB, nil)

	var joined struct {
		JoinGroup struct{ Group struct{ ID string } }
	}
	carol.Must(&joined, joinWithInvite, "i", *invA.Secret)
	require.Equal(t, groupA, joined.JoinGroup.Group.ID)
	var g struct{ Group *struct{ ID string } }
	carol.Must(&g, `query($g: ID!) { group(id: $g) { id } }`, "g", groupB)
	require.Nil(t, g.Group, "the invite to A did not admit to B")

	// Bob, outside A, can neither revoke A's invite nor pass it off as B's.
	bob.Fails("NOT_FOUND", `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", invA.ID)
	bob.Fails("NOT_FOUND", `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", groupB+":"+strings.TrimPrefix(invA.ID, groupA+":"))
	var listed struct{ Group struct{ Invites []inviteRow } }
	bob.Must(&listed, groupInvites, "g", groupB)
	require.Len(t, listed.Group.Invites, 1)
	require.NotEqual(t, invA.ID, listed.Group.Invites[0].ID)
	alice.Must(&listed, groupInvites, "g", groupA)
	require.Len(t, listed.Group.Invites, 1, "A's invite is still there")
}

func TestJoiningByIDIsForGroupsThatAllowIt(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	group := alice.CreateGroup("Trip")
	const joinByID = `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`

	closed := bob.Fails("NOT_FOUND", joinByID, "g", group)
	missing := bob.Fails("NOT_FOUND", joinByID, "g", "7d9c1f4e-0000-4000-8000-000000000000")
	require.Equal(t, missing.Errors[0].Message, closed.Errors[0].Message, "a closed group answers like a missing one")

	var updated struct {
		UpdateGroup struct{ JoinByIDAllowed bool }
	}
	alice.Must(&updated, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, joinByIdAllowed: true}) { joinByIdAllowed } }`, "g", group)
	require.True(t, updated.UpdateGroup.JoinByIDAllowed)
	bob.Must(nil, joinByID, "g", group)

	var log struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Changes []struct{ Field, Before, After *string }
				}
			}
		}
	}
	alice.Must(&log, `query($g: ID!) { group(id: $g) { activity { nodes { type changes { field before after } } } } }`, "g", group)
	require.Equal(t, "MEMBER_JOINED", log.Group.Activity.Nodes[0].Type)
	require.Equal(t, "GROUP_UPDATED", log.Group.Activity.Nodes[1].Type)
	require.Equal(t, "joinByIdAllowed", *log.Group.Activity.Nodes[1].Changes[0].Field)
	require.Equal(t, "false", *log.Group.Activity.Nodes[1].Changes[0].Before)
	require.Equal(t, "true", *log.Group.Activity.Nodes[1].Changes[0].After)
}

func TestJoinFromTheMiniAppStartParameter(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	inv := newInvite(t, alice, group, nil)

	opened := api.WithHeader("tma " + apitest.InitDataStartParam(444, "Dan", "", "dan", time.Now(), *inv.Secret))
	var joined struct{ JoinGroup struct{ ID string } }
	opened.Must(&joined, `mutation { joinGroup { id } }`)
	require.Equal(t, group+":444", joined.JoinGroup.ID)

	plain := api.TelegramUser(555, "Eve", "", "eve")
	plain.Fails("BAD_USER_INPUT", `mutation { joinGroup { id } }`)
	plain.Fails("BAD_USER_INPUT", `mutation($g: ID!, $i: String!) { joinGroup(groupId: $g, invite: $i) { id } }`, "g", group, "i", *inv.Secret)
	other := api.WithHeader("tma " + apitest.InitDataStartParam(666, "Mallory", "", "", time.Now(), "group_42"))
	other.Fails("NOT_FOUND", `mutation { joinGroup { id } }`)
}

func TestInviteLinks(t *testing.T) {
	api := apitest.New(t, apitest.InviteLinks("FractiBot", "split"))
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	inv := newInvite(t, alice, group, map[string]any{"expiresIn": 3600, "maxUses": 5})
	require.Equal(t, "https://t.me/FractiBot/split?startapp="+*inv.Secret, *inv.Link)
	require.Equal(t, 5, *inv.MaxUses)
}

// Creating and revoking an invite reach subscribers live and clients catching
// up with changes(since:), each an event whose subject is the invite as it is
// now (revoked, with revokedAt), never its secret.
func TestInviteEventsAreDeliveredLive(t *testing.T) {
	api := apitest.New(t, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Trip")
	ben.Join(g)
	var head struct{ Group struct{ SyncToken string } }
	ben.Must(&head, `query($g: ID!) { group(id: $g) { syncToken } }`, "g", g)

	const sub = `subscription($g: ID!) { groupEvents(groupId: $g) { type actor { userId }
		changes { field before after } subject { __typename ... on Invite { id secret link revokedAt } } } }`
	type event struct {
		Type    string
		Actor   struct{ UserID string }
		Changes []struct {
			Field         string
			Before, After *string
		}
		Subject struct {
			Typename     string `json:"__typename"`
			ID           string
			Secret, Link *string
			RevokedAt    *string
		}
	}
	c := dial(t, api, ben)
	require.NoError(t, c.Subscribe(context.Background(), "1", sub, map[string]any{"g": g}))
	waitSubscribed(t, api, 1)
	// await skips what Ben's join wrote, which may arrive after he subscribed.
	await := func(typ, inviteID string) event {
		t.Helper()
		for {
			m := next(t, c, "1")
			require.Equal(t, "next", m.Type, "payload: %s", m.Payload)
			var payload struct{ Data struct{ GroupEvents event } }
			require.NoError(t, json.Unmarshal(m.Payload, &payload))
			if ev := payload.Data.GroupEvents; ev.Type == typ && ev.Subject.ID == inviteID {
				return ev
			}
		}
	}

	inv := newInvite(t, ann, g, map[string]any{"maxUses": 2})
	created := await("INVITE_CREATED", inv.ID)
	require.Equal(t, "1001", created.Actor.UserID)
	require.Equal(t, "Invite", created.Subject.Typename)
	require.Nil(t, created.Subject.Secret, "an event never shows the secret")
	require.Nil(t, created.Subject.Link)
	require.Nil(t, created.Subject.RevokedAt)
	require.Len(t, created.Changes, 2)
	require.Equal(t, "expiresAt", created.Changes[0].Field)
	require.Equal(t, "maxUses", created.Changes[1].Field)
	require.Equal(t, "2", *created.Changes[1].After)

	ben.Must(nil, `mutation($id: ID!) { revokeInvite(id: $id) }`, "id", inv.ID)
	revoked := await("INVITE_REVOKED", inv.ID)
	require.Equal(t, "1002", revoked.Actor.UserID)
	require.NotNil(t, revoked.Subject.RevokedAt, "the subject as it is now: revoked")
	require.Nil(t, revoked.Subject.Secret)
	require.Equal(t, "revokedAt", revoked.Changes[0].Field)

	// A client that was away gets both from changes(since:).
	var out struct {
		Group struct {
			Changes struct{ Events []event }
		}
	}
	ann.Must(&out, `query($g: ID!, $s: String) { group(id: $g) { changes(since: $s) { events { type actor { userId }
		changes { field before after } subject { __typename ... on Invite { id secret link revokedAt } } } } } }`, "g", g, "s", head.Group.SyncToken)
	require.Len(t, out.Group.Changes.Events, 2)
	require.Equal(t, "INVITE_CREATED", out.Group.Changes.Events[0].Type)
	require.Equal(t, "INVITE_REVOKED", out.Group.Changes.Events[1].Type)
	for _, ev := range out.Group.Changes.Events {
		require.Equal(t, inv.ID, ev.Subject.ID)
		require.Nil(t, ev.Subject.Secret)
		require.NotNil(t, ev.Subject.RevokedAt)
	}
	broken, err := api.Store.VerifyChain(t.Context(), g)
	require.NoError(t, err)
	require.Empty(t, broken, "the invite events are links of the chain")
}
