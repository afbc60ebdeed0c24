package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// spyBody records whether anything read it.
type spyBody struct {
	io.Reader
	read bool
}

func (b *spyBody) Read(p []byte) (int, error) {
	b.read = true
	return b.Reader.Read(p)
}

func (b *spyBody) Close() error { return nil }

// TestMultipartNeedsAPreflightHeaderBeforeItsBodyIsRead: a multipart POST
// without a non-empty Apollo-Require-Preflight, GraphQL-Preflight or
// X-Apollo-Operation-Name is 400 BAD_REQUEST with its body never read
// (however its media type is cased); a JSON request needs none.
func TestMultipartNeedsAPreflightHeaderBeforeItsBodyIsRead(t *testing.T) {
	h := httpapi.New(httpapi.Config{Store: store.New(dynamotest.Client(t), "unused", store.Options{})})
	multipart := `--b` + "\r\n" + `Content-Disposition: form-data; name="operations"` + "\r\n\r\n" +
		`{"query":"{ __typename }"}` + "\r\n" + `--b` + "\r\n" + `Content-Disposition: form-data; name="map"` + "\r\n\r\n{}\r\n--b--\r\n"
	for _, tc := range []struct {
		name, contentType, header, value string
		refused                          bool
	}{
		{"no header", "multipart/form-data; boundary=b", "", "", true},
		{"an empty header", "multipart/form-data; boundary=b", "Apollo-Require-Preflight", "", true},
		{"no header, cased type", "Multipart/Form-Data; boundary=b", "", "", true},
		{"Apollo-Require-Preflight", "multipart/form-data; boundary=b", "Apollo-Require-Preflight", "true", false},
		{"GraphQL-Preflight", "multipart/form-data; boundary=b", "GraphQL-Preflight", "1", false},
		{"X-Apollo-Operation-Name", "multipart/form-data; boundary=b", "X-Apollo-Operation-Name", "Q", false},
		{"JSON without a header", "application/json", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &spyBody{Reader: strings.NewReader(multipart)}
			if tc.contentType == "application/json" {
				body.Reader = strings.NewReader(`{"query":"{ __typename }"}`)
			}
			req := httptest.NewRequest(http.MethodPost, "/graphql", body)
			req.Header.Set("Content-Type", tc.contentType)
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tc.refused {
				require.Equal(t, http.StatusBadRequest, rec.Code)
				require.Contains(t, rec.Body.String(), `"code":"BAD_REQUEST"`)
				require.False(t, body.read, "the body was read before the request was refused")
				return
			}
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			require.Contains(t, rec.Body.String(), `"__typename":"Query"`)
		})
	}
}
