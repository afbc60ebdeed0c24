package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The export routes' authorization matrix: every kind of bad credentials
// is 401 as /graphql says UNAUTHENTICATED; an outsider, a member who left
// and an unknown group get the same 404; a token without READ, 403; a
// member, signed in either way, the file.
func TestExportAuthorizationMatrix(t *testing.T) {
	api := apitest.New(t)
	alice, bob, carol := api.User("111", "Alice"), api.TelegramUser(222, "Bob", "", "bob"), api.User("333", "Carol")
	g := alice.CreateGroup("Trip")
	bob.Join(g)
	carol.Join(g)
	alice.Expense(g, "10.00", "111", "222")
	carol.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", g)
	outsider := api.User("999", "Mallory")
	writeOnly := tokenWithScopes(t, api, "111", "WRITE")

	badCredentials := apitest.BadCredentials()
	for _, format := range []string{"json", "csv"} {
		path := "/export/groups/" + g + "." + format
		unknown := "/export/groups/00000000-0000-4000-8000-000000000000." + format
		t.Run(format, func(t *testing.T) {
			for name, header := range badCredentials {
				res := api.WithHeader(header).Get(path)
				require.Equal(t, http.StatusUnauthorized, res.Code, name)
				require.Contains(t, res.Body.String(), `"code":"UNAUTHENTICATED"`, name)
			}
			id := []string{"X-Request-Id", "matrix"}
			missing := outsider.Get(unknown, id...).Body.String()
			require.Contains(t, missing, `"code":"NOT_FOUND"`)
			for name, u := range map[string]*apitest.User{"outsider": outsider, "member who left": carol} {
				res := u.Get(path, id...)
				require.Equal(t, http.StatusNotFound, res.Code, name)
				require.Equal(t, missing, res.Body.String(), "%s: answered as a group that does not exist", name)
			}
			res := api.WithHeader("Bearer " + writeOnly).Get(path)
			require.Equal(t, http.StatusForbidden, res.Code)
			require.Contains(t, res.Body.String(), `"code":"FORBIDDEN"`)
			for name, u := range map[string]*apitest.User{"token": alice, "init data": bob} {
				res := u.Get(path)
				require.Equal(t, http.StatusOK, res.Code, "%s: %s", name, res.Body)
				require.Contains(t, res.Body.String(), "10.00", name)
			}
		})
	}
}

// tokenWithScopes makes an access token of the user with only these scopes.
func tokenWithScopes(t *testing.T, api *apitest.API, userID string, scopes ...string) string {
	t.Helper()
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = api.Store.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: userID, Name: "Alice", Scopes: scopes})
	require.NoError(t, err)
	return token
}

// An export is a read against the caller's daily quota, as a query is.
func TestExportCountsAsARead(t *testing.T) {
	api := apitest.New(t, apitest.Quota(quota.Limits{ReadsPerDay: 3, Sample: 1}))
	alice := api.User("111", "Alice")
	g := alice.CreateGroup("Trip") // a write
	path := "/export/groups/" + g + ".csv"
	require.Equal(t, http.StatusOK, alice.Get(path).Code)
	require.Equal(t, http.StatusOK, alice.Get(path).Code)
	require.Empty(t, alice.Do(`{ me { id } }`).Errors, "the third read of the day")
	res := alice.Get(path)
	require.Equal(t, http.StatusTooManyRequests, res.Code)
	require.NotEmpty(t, res.Header().Get("Retry-After"))
	require.Contains(t, res.Body.String(), `"code":"RATE_LIMITED"`)
	require.Equal(t, "RATE_LIMITED", alice.Do(`{ me { id } }`).Code(), "and /graphql counts the exports")
}
