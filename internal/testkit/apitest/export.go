package apitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// Get sends a GET of path (such as an export's) with u's Authorization
// header and any further headers (names and values alternating), and
// returns the response as the server wrote it.
func (u *User) Get(path string, headers ...string) *httptest.ResponseRecorder {
	u.api.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if u.header != "" {
		req.Header.Set("Authorization", u.header)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	u.api.handler.ServeHTTP(w, req)
	return w
}

// BadCredentials are Authorization headers that sign nobody in, by name:
// none, unknown, malformed and expired credentials, forged init data, init
// data of another bot, and an unknown scheme. Every route that needs a
// signed-in user answers each of them as it answers no credentials.
func BadCredentials() map[string]string {
	fresh := InitData(222, "Bob", "", "bob", time.Now())
	return map[string]string{
		"no credentials":       "",
		"unknown token":        "Bearer frt_aP0LINc6Ai1Z5uSYudHEK99CjpY7qHB8euhfn3KNhaM",
		"malformed token":      "Bearer hunter2",
		"forged init data":     "tma " + strings.Replace(fresh, "Bob", "Eve", 1),
		"init data, other bot": "tma " + strings.Replace(fresh, "hash=", "hash=0", 1),
		"expired init data":    "tma " + InitData(222, "Bob", "", "bob", time.Now().Add(-25*time.Hour)),
		"unknown scheme":       "Basic YWxpY2U6c2VjcmV0",
	}
}
