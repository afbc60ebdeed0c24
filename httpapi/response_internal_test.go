package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestEncodeResponseIsJSONMarshal holds the direct write of a data-only
// response to what json.Marshal writes, escapes included, and checks that
// every other response still goes through json.Marshal.
func TestEncodeResponseIsJSONMarshal(t *testing.T) {
	yes := true
	data := json.RawMessage(`{"group":{"title":"a <b> & \"c\" \u2028 \\ é 🎉","n":[1,2.5,null,true],"o":{}}}`)
	for _, resp := range []*graphql.Response{
		{Data: data},
		{Data: json.RawMessage(`{"me":null}`)},
		{Data: json.RawMessage("{\"s\":\"a \xe2\x80\xa8 b\"}")},
		{Data: json.RawMessage("{\"s\":\"a \xe2\x80\xa9 b\"}")},
		{Data: json.RawMessage(`{"s":"a > b"}`)},
		{Data: json.RawMessage("{\"s\":\"\xe2\x80\xa8\xe2\x80\xa9<>&\xff\"}")},
		{},
		{Data: data, Errors: gqlerror.List{{Message: "boom", Path: ast.Path{ast.PathName("group")}}}},
		{Data: data, Extensions: map[string]any{"cost": 3}},
		{Data: data, Label: "l", Path: ast.Path{ast.PathIndex(0)}, HasNext: &yes},
	} {
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if got := encodeResponse(resp); !bytes.Equal(got, want) {
			t.Errorf("encodeResponse:\n got %s\nwant %s", got, want)
		}
		var written bytes.Buffer
		writeResponse(&written, resp)
		if !bytes.Equal(written.Bytes(), want) {
			t.Errorf("writeResponse:\n got %s\nwant %s", written.Bytes(), want)
		}
	}
}
