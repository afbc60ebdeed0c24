package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

// meDocument is /export/me.json as a client reads it.
type meDocument struct {
	Format, UserID string
	Profile        *struct{ Name, Username string }
	AccessTokens   []map[string]any
	Memberships    []struct {
		GroupID, GroupTitle, Name string
		LeftAt, ErasedAt          *string
	}
	Groups []struct {
		GroupID  string
		Expenses []struct {
			ID             string
			Payers, Splits []struct{ UserID, Name, Amount string }
		}
		Settlements []struct {
			From, To struct{ UserID string }
		}
		Comments []struct{ Body string }
		Events   []struct {
			Type, ActorID, Subject string
		}
	}
}

// /export/me.json: the signed-in person's profile, tokens (never a secret or
// a hash), every membership, current and former, and per group what they
// paid, share, settled, wrote and did; streamed with a flush per list.
func TestExportMe(t *testing.T) {
	f := newExportFixture(t)
	api := f.api
	bob := api.TelegramUser(222, "Bob", "Builder", "bob")
	g2 := f.alex.CreateGroup("Other")
	bob.Join(g2)
	bob.Join(f.groupID)
	bob.Expense(f.groupID, "9.00", "222", "101")
	bob.Settle(f.groupID, "101", "1.00")
	bob.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g2) // a former membership
	token := createdToken(t, bob)

	res := bob.Get("/export/me.json")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	require.Equal(t, "application/json; charset=utf-8", res.Header().Get("Content-Type"))
	require.Equal(t, "no-store", res.Header().Get("Cache-Control"))
	require.Contains(t, res.Header().Get("Content-Disposition"), "fracti-me.json")
	require.True(t, res.Flushed, "streamed: flushed list by list")
	body := res.Body.String()
	require.NotContains(t, body, token, "never a token's secret")
	require.NotContains(t, strings.ToLower(body), `"hash"`, "nor its hash")

	var doc meDocument
	require.NoError(t, json.Unmarshal(res.Body.Bytes(), &doc), body)
	require.Equal(t, "fracti-me-1", doc.Format)
	require.Equal(t, "222", doc.UserID)
	require.NotNil(t, doc.Profile)
	require.Equal(t, "Bob Builder", doc.Profile.Name)
	require.Len(t, doc.AccessTokens, 1)
	require.Equal(t, "phone", doc.AccessTokens[0]["label"])
	require.Len(t, doc.Memberships, 2, "current and former")
	titles := map[string]*string{}
	for _, m := range doc.Memberships {
		titles[m.GroupTitle] = m.LeftAt
	}
	require.Nil(t, titles["Trip: Rome / 2026"])
	require.NotNil(t, titles["Other"], "the former one says when it ended")
	var trip = doc.Groups[0]
	if trip.GroupID != f.groupID {
		trip = doc.Groups[1]
	}
	require.Len(t, trip.Expenses, 1, "only the expenses they paid or share in")
	require.Equal(t, "Bob Builder", trip.Expenses[0].Payers[0].Name)
	require.Len(t, trip.Settlements, 1)
	require.Equal(t, "222", trip.Settlements[0].From.UserID)
	require.NotEmpty(t, trip.Events)
	for _, ev := range trip.Events {
		require.True(t, ev.ActorID == "222" || ev.Subject == "member:222", "%+v", ev)
	}

	// After an erasure, a fresh sign-in exports no profile and the erased
	// memberships as "Former member".
	bob.Must(nil, `mutation { eraseMyData(confirm: "ERASE") { groups } }`)
	again := api.TelegramUser(222, "Bob", "Builder", "bob")
	res = again.Get("/export/me.json")
	require.Equal(t, http.StatusOK, res.Code)
	doc = meDocument{}
	require.NoError(t, json.Unmarshal(res.Body.Bytes(), &doc))
	require.Empty(t, doc.AccessTokens)
	require.Len(t, doc.Memberships, 2)
	for _, m := range doc.Memberships {
		require.Equal(t, "Former member", m.Name)
		require.NotNil(t, m.ErasedAt)
	}
	require.NotContains(t, res.Body.String(), "Bob Builder\",\"amount", "their names are gone from the books")
}

// createdToken makes an access token through the API and returns its secret.
func createdToken(t *testing.T, u *apitest.User) string {
	t.Helper()
	var out struct{ CreateAccessToken struct{ Token string } }
	u.Must(&out, `mutation { createAccessToken(input: {name: "phone", scopes: [READ]}) { token } }`)
	return out.CreateAccessToken.Token
}

// /export/me.json answers bad credentials 401 and a token without READ 403,
// as a group's export does; with READ, the file.
func TestExportMeAuthorization(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	for name, header := range apitest.BadCredentials() {
		res := api.WithHeader(header).Get("/export/me.json")
		require.Equal(t, http.StatusUnauthorized, res.Code, name)
		require.Contains(t, res.Body.String(), `"code":"UNAUTHENTICATED"`, name)
		require.Empty(t, res.Header().Get("Content-Disposition"), name)
	}
	res := api.WithHeader("Bearer " + tokenWithScopes(t, api, "111", "WRITE")).Get("/export/me.json")
	require.Equal(t, http.StatusForbidden, res.Code)
	res = api.WithHeader("Bearer " + tokenWithScopes(t, api, "111", "READ")).Get("/export/me.json")
	require.Equal(t, http.StatusOK, res.Code)
	require.Equal(t, http.StatusOK, alice.Get("/export/me.json").Code)
}
