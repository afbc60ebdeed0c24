package apitest

import (
	"net/http"
	"net/http/httptest"
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
