package apitest

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// File is a variable's value sent as a file: an operation with one goes as
// the GraphQL multipart request spec (with a preflight header), the file
// in a part of its own.
type File struct {
	Name string
	Data []byte
}

// MultipartBody is the multipart form of a GraphQL request whose variables
// hold Files (each replaced by null in `operations` and named in `map`),
// and its Content-Type.
func MultipartBody(t testing.TB, body map[string]any) (*bytes.Buffer, string) {
	t.Helper()
	vars, _ := body["variables"].(map[string]any)
	files := map[string]File{}
	plain := map[string]any{}
	for k, v := range vars {
		if f, ok := v.(File); ok {
			files[k] = f
			v = nil
		}
		plain[k] = v
	}
	ops := map[string]any{"query": body["query"], "variables": plain}
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	fileMap := map[string][]string{}
	for i, k := range names {
		fileMap[string(rune('0'+i))] = []string{"variables." + k}
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, part := range []struct {
		name string
		v    any
	}{{"operations", ops}, {"map", fileMap}} {
		b, err := json.Marshal(part.v)
		require.NoError(t, err)
		require.NoError(t, mw.WriteField(part.name, string(b)))
	}
	for i, k := range names {
		w, err := mw.CreateFormFile(string(rune('0'+i)), files[k].Name)
		require.NoError(t, err)
		_, err = w.Write(files[k].Data)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return &buf, mw.FormDataContentType()
}

// uploadRequest is the multipart request of a body with Files, with
// Apollo's preflight header; ok is false when it has none.
func uploadRequest(t testing.TB, body map[string]any) (*http.Request, bool) {
	vars, _ := body["variables"].(map[string]any)
	has := false
	for _, v := range vars {
		_, isFile := v.(File)
		has = has || isFile
	}
	if !has {
		return nil, false
	}
	buf, contentType := MultipartBody(t, body)
	req := httptest.NewRequest(http.MethodPost, "/graphql", buf)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Apollo-Require-Preflight", "true")
	return req, true
}
