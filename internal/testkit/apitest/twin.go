package apitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"

	"github.com/fracti/api/httpapi"
	"github.com/stretchr/testify/require"
)

// GenericMarshal turns the executor's fast path off (FAST_MARSHAL=false).
func GenericMarshal() Option { return func(c *httpapi.Config) { c.GenericMarshal = true } }

// Twin is a second server over the same table (and call Counter), with the
// default configuration and opts: the same requests on both compare two
// configurations on the same data.
func (a *API) Twin(opts ...Option) *API {
	cfg := httpapi.Config{Store: a.Store, BotToken: BotToken, CORSOrigins: []string{"https://app.example"}}
	for _, o := range opts {
		o(&cfg)
	}
	h := httpapi.New(cfg)
	return &API{t: a.t, Store: a.Store, Calls: a.Calls, handler: h, creators: a.creators}
}

// On is u signed in to another server (a Twin) with the same credentials.
func (u *User) On(a *API) *User { return &User{api: a, ID: u.ID, Name: u.Name, header: u.header} }

// Raw runs an operation and returns the response body exactly as the
// server wrote it.
func (u *User) Raw(query string, variables map[string]any) []byte {
	u.api.t.Helper()
	return u.post(map[string]any{"query": query, "variables": variables}).Body.Bytes()
}

// post sends a GraphQL request body as JSON.
func (u *User) post(body map[string]any) *httptest.ResponseRecorder {
	u.api.t.Helper()
	req, upload := uploadRequest(u.api.t, body)
	if !upload {
		b, err := json.Marshal(body)
		require.NoError(u.api.t, err)
		req = httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
	}
	if u.header != "" {
		req.Header.Set("Authorization", u.header)
	}
	w := httptest.NewRecorder()
	u.api.handler.ServeHTTP(w, req)
	return w
}
