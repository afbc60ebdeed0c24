package graph_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// newToken is what createAccessToken answers.
type newToken struct {
	Token       string
	AccessToken accessToken
}

// accessToken is an AccessToken as the API lists it.
type accessToken struct {
	ID, Name   string
	Scopes     []string
	CreatedAt  string
	LastUsedAt *string
	ExpiresAt  *string
}

const createToken = `mutation($in: CreateAccessTokenInput!) { createAccessToken(input: $in) {
	token accessToken { id name scopes createdAt lastUsedAt expiresAt } } }`

// createAccessToken makes a token through the API and returns it.
func createAccessToken(t *testing.T, u *apitest.User, in map[string]any) newToken {
	t.Helper()
	var out struct{ CreateAccessToken newToken }
	u.Must(&out, createToken, "in", in)
	require.True(t, strings.HasPrefix(out.CreateAccessToken.Token, auth.TokenPrefix))
	return out.CreateAccessToken
}

func TestReadTokenCannotRunMutations(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Trip")
	read := api.WithHeader("Bearer " + createAccessToken(t, alice, map[string]any{"name": "dashboard", "scopes": []string{"READ"}}).Token)

	var out struct{ Group struct{ Title string } }
	read.Must(&out, `query($g: ID!) { group(id: $g) { title } }`, "g", group)
	require.Equal(t, "Trip", out.Group.Title)

	for _, m := range []string{
		`mutation { createGroup(input: {title: "x", currency: "USD"}) { id } }`,
		`mutation { createAccessToken(input: {name: "more", scopes: [READ, WRITE]}) { token } }`,
	} {
		res := read.Fails("FORBIDDEN", m)
		require.Equal(t, "this access token has the READ scope only; mutations need WRITE", res.Errors[0].Message)
		require.Equal(t, "WRITE", res.Errors[0].Extensions["requiredScope"])
		require.True(t, answersNothing(res.Data), "%s", res.Data)
	}
	var groups struct {
		Me struct {
			Groups struct{ Nodes []struct{ ID string } }
		}
	}
	alice.Must(&groups, `{ me { groups { nodes { id } } } }`)
	require.Len(t, groups.Me.Groups.Nodes, 1, "nothing was created")
}

func TestWriteTokenRunsMutations(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	write := api.WithHeader("Bearer " + createAccessToken(t, alice, map[string]any{"name": "bot", "scopes": []string{"WRITE"}}).Token)
	id := write.CreateGroup("From a bot")
	var out struct{ Group struct{ Title string } }
	alice.Must(&out, `query($g: ID!) { group(id: $g) { title } }`, "g", id)
	require.Equal(t, "From a bot", out.Group.Title)

	var me struct{ Me struct{ ID, Name string } }
	write.Must(&me, `{ me { id name } }`)
	require.Equal(t, "111", me.Me.ID)
	require.Equal(t, "Alice", me.Me.Name, "the owner's name, not the token's")
}

func TestRevokedTokenIsUnauthenticatedAtOnce(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	made := createAccessToken(t, alice, map[string]any{"name": "old script", "scopes": []string{"READ", "WRITE"}})
	script := api.WithHeader("Bearer " + made.Token)
	script.Must(nil, `{ me { id } }`) // now cached on this instance

	var out struct{ RevokeAccessToken string }
	alice.Must(&out, `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", made.AccessToken.ID)
	require.Equal(t, made.AccessToken.ID, out.RevokeAccessToken)

	res := script.Fails("UNAUTHENTICATED", `{ me { id } }`)
	require.Equal(t, "unknown access token", res.Errors[0].Message)
	alice.Fails("NOT_FOUND", `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", made.AccessToken.ID)

	// A token may revoke itself.
	self := createAccessToken(t, alice, map[string]any{"name": "self", "scopes": []string{"WRITE"}})
	selfUser := api.WithHeader("Bearer " + self.Token)
	selfUser.Must(nil, `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", self.AccessToken.ID)
	selfUser.Fails("UNAUTHENTICATED", `{ me { id } }`)
}

func TestExpiredTokenIsUnauthenticated(t *testing.T) {
	clock := &apitest.Clock{}
	api := apitest.New(t, apitest.WithClock(clock))
	alice := api.User("111", "Alice")
	made := createAccessToken(t, alice, map[string]any{"name": "brief", "scopes": []string{"READ"}, "expiresIn": 60})
	expires, err := time.Parse(time.RFC3339, *made.AccessToken.ExpiresAt)
	require.NoError(t, err)
	require.WithinDuration(t, clock.Now().Add(time.Minute), expires, 5*time.Second)

	brief := api.WithHeader("Bearer " + made.Token)
	brief.Must(nil, `{ me { id } }`)
	clock.Add(61 * time.Second)
	res := brief.Fails("UNAUTHENTICATED", `{ me { id } }`)
	require.Equal(t, "access token expired at "+expires.UTC().Format(time.RFC3339), res.Errors[0].Message)

	var out struct {
		Me struct{ AccessTokens []accessToken }
	}
	alice.Must(&out, `{ me { accessTokens { id } } }`)
	for _, tok := range out.Me.AccessTokens {
		require.NotEqual(t, made.AccessToken.ID, tok.ID, "an expired token is not listed")
	}
}

func TestListAccessTokens(t *testing.T) {
	clock := &apitest.Clock{}
	api := apitest.New(t, apitest.WithClock(clock))
	alice := api.User("111", "Alice")
	ci := createAccessToken(t, alice, map[string]any{"name": "  CI bot ", "scopes": []string{"WRITE", "READ", "WRITE"}})
	dash := createAccessToken(t, alice, map[string]any{"name": "dashboard", "scopes": []string{"READ"}, "expiresIn": 3600})
	require.Equal(t, "CI bot", ci.AccessToken.Name, "cleaned like other names")
	require.Equal(t, []string{"READ", "WRITE"}, ci.AccessToken.Scopes)
	require.Nil(t, ci.AccessToken.LastUsedAt)
	created, err := time.Parse(time.RFC3339, ci.AccessToken.CreatedAt)
	require.NoError(t, err)
	expires, err := time.Parse(time.RFC3339, *ci.AccessToken.ExpiresAt)
	require.NoError(t, err)
	require.WithinDuration(t, created.Add(90*24*time.Hour), expires, 5*time.Second, "90 days by default")

	api.WithHeader("Bearer "+dash.Token).Must(nil, `{ me { id } }`)
	today := clock.Now().UTC().Format("2006-01-02")

	res := alice.Do(`{ me { accessTokens { id name scopes createdAt lastUsedAt expiresAt } } }`)
	require.Empty(t, res.Errors)
	for _, secret := range []string{ci.Token, dash.Token, auth.HashToken(ci.Token), auth.HashToken(dash.Token)} {
		require.NotContains(t, string(res.Data), secret, "neither the token nor its hash is ever listed")
	}
	var out struct {
		Me struct{ AccessTokens []accessToken }
	}
	alice.Must(&out, `{ me { accessTokens { id name scopes createdAt lastUsedAt expiresAt } } }`)
	got := out.Me.AccessTokens
	require.Len(t, got, 3, "the two, and the one alice signs in with")
	wantDash := dash.AccessToken
	wantDash.LastUsedAt = &today
	require.Equal(t, []accessToken{wantDash, ci.AccessToken}, got[:2], "newest first")
	require.Equal(t, []string{"READ", "WRITE"}, got[2].Scopes, "a token made before scopes may do everything")
	require.Nil(t, got[2].ExpiresAt, "and never expires")
	require.NotNil(t, got[2].LastUsedAt, "alice is using it")
}

func TestOthersCannotSeeOrRevokeYourTokens(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	made := createAccessToken(t, alice, map[string]any{"name": "mine", "scopes": []string{"READ"}})

	theirs := bob.Fails("NOT_FOUND", `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", made.AccessToken.ID)
	unknown := bob.Fails("NOT_FOUND", `mutation($id: ID!) { revokeAccessToken(id: $id) }`, "id", "no-such-token")
	require.Equal(t, unknown.Errors[0].Message, theirs.Errors[0].Message, "the same answer")

	res := bob.Do(`{ me { accessTokens { id name } } }`)
	require.Empty(t, res.Errors)
	require.NotContains(t, string(res.Data), made.AccessToken.ID)
	require.NotContains(t, string(res.Data), "mine")
	api.WithHeader("Bearer "+made.Token).Must(nil, `{ me { id } }`) // still works
}

func TestCreateAccessTokenInput(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	writeOnly := api.WithHeader("Bearer " + createAccessToken(t, alice, map[string]any{"name": "w", "scopes": []string{"WRITE"}}).Token)
	hour := api.WithHeader("Bearer " + createAccessToken(t, alice, map[string]any{"name": "h", "scopes": []string{"READ", "WRITE"}, "expiresIn": 3600}).Token)

	for _, tc := range []struct {
		name  string
		who   *apitest.User
		in    map[string]any
		field string
	}{
		{"empty name", alice, map[string]any{"name": "  ", "scopes": []string{"READ"}}, "input.name"},
		{"long name", alice, map[string]any{"name": strings.Repeat("n", 65), "scopes": []string{"READ"}}, "input.name"},
		{"no scopes", alice, map[string]any{"name": "x", "scopes": []string{}}, "input.scopes"},
		{"too short", alice, map[string]any{"name": "x", "scopes": []string{"READ"}, "expiresIn": 59}, "input.expiresIn"},
		{"too long", alice, map[string]any{"name": "x", "scopes": []string{"READ"}, "expiresIn": 366*24*3600 + 1}, "input.expiresIn"},
		{"a scope the creator lacks", writeOnly, map[string]any{"name": "x", "scopes": []string{"READ"}}, "input.scopes"},
		{"outliving the creator", hour, map[string]any{"name": "x", "scopes": []string{"READ"}}, "input.expiresIn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.who.Fails("BAD_USER_INPUT", createToken, "in", tc.in)
			require.Equal(t, tc.field, res.Field(), "%+v", res.Errors)
		})
	}
	// The limits themselves are fine.
	createAccessToken(t, alice, map[string]any{"name": strings.Repeat("n", 64), "scopes": []string{"READ"}, "expiresIn": 60})
	createAccessToken(t, alice, map[string]any{"name": "x", "scopes": []string{"READ"}, "expiresIn": 366 * 24 * 3600})
	createAccessToken(t, hour, map[string]any{"name": "x", "scopes": []string{"WRITE"}, "expiresIn": 1800})
}

// The credentials of a request are remembered: the same token's second
// request makes no DynamoDB call for them, and lastUsedAt is written once a
// day.
func TestTokenCredentialsCostNoCallsWhenCached(t *testing.T) {
	clock := &apitest.Clock{}
	api := apitest.New(t, apitest.WithClock(clock))
	alice := api.User("111", "Alice")
	script := api.WithHeader("Bearer " + createAccessToken(t, alice, map[string]any{"name": "s", "scopes": []string{"READ"}}).Token)
	const me = `{ me { id } }` // answered from the credentials alone

	api.Calls.Reset()
	script.Must(nil, me)
	require.Equal(t, map[string]int{"GetItem": 1, "UpdateItem": 1}, api.Calls.ByOperation(), "the lookup, and lastUsedAt")
	for range 3 {
		api.Calls.Reset()
		script.Must(nil, me)
		require.Zero(t, api.Calls.Total(), "%v", api.Calls.ByOperation())
	}

	clock.Add(31 * time.Second) // the cache's entry is stale: looked up again, lastUsedAt not written again
	api.Calls.Reset()
	script.Must(nil, me)
	require.Equal(t, map[string]int{"GetItem": 1}, api.Calls.ByOperation())

	clock.Add(24 * time.Hour) // the next day: lastUsedAt once more
	api.Calls.Reset()
	script.Must(nil, me)
	require.Equal(t, map[string]int{"GetItem": 1, "UpdateItem": 1}, api.Calls.ByOperation())
	api.Calls.Reset()
	script.Must(nil, me)
	require.Zero(t, api.Calls.Total())
}
