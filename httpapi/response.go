package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// encodeResponse is json.Marshal(resp), byte for byte. A response that is
// only data (every screen that succeeds) is written around the executor's
// JSON as it is: json.Marshal would scan the whole document again to
// compact it (the executor writes no insignificant space) and copy it
// once more, for nothing but the escaping of <, >, & and U+2028/U+2029,
// which json.HTMLEscape does on its own.
func encodeResponse(resp *graphql.Response) []byte {
	if !dataOnly(resp) {
		b, err := json.Marshal(resp)
		if err != nil { // our bug, not the client's
			panic(fmt.Errorf("encode response: %w", err))
		}
		return b
	}
	var buf bytes.Buffer
	buf.Grow(len(`{"data":}`) + len(resp.Data) + len(resp.Data)/64)
	buf.WriteString(`{"data":`)
	json.HTMLEscape(&buf, resp.Data)
	buf.WriteByte('}')
	return buf.Bytes()
}

// writeResponse writes encodeResponse(resp) to w. A data-only response
// with nothing to escape (no <, >, & or U+2028/U+2029: nearly every one) is
// written around the executor's JSON without copying it (a group screen is
// some 50 KB).
func writeResponse(w io.Writer, resp *graphql.Response) {
	if !dataOnly(resp) || needsHTMLEscape(resp.Data) {
		_, _ = w.Write(encodeResponse(resp))
		return
	}
	_, _ = io.WriteString(w, `{"data":`)
	_, _ = w.Write(resp.Data)
	_, _ = io.WriteString(w, `}`)
}

// needsHTMLEscape is whether json.HTMLEscape would change b.
func needsHTMLEscape(b []byte) bool {
	return bytes.ContainsAny(b, "<>&") || bytes.Contains(b, lineSeparator) || bytes.Contains(b, paragraphSeparator)
}

// U+2028 and U+2029 in UTF-8, which json.HTMLEscape escapes.
var lineSeparator, paragraphSeparator = []byte("\u2028"), []byte("\u2029")

// dataOnly is whether resp is only data, which encodeResponse writes
// around the executor's JSON instead of through json.Marshal.
func dataOnly(resp *graphql.Response) bool {
	return len(resp.Errors) == 0 && len(resp.Data) > 0 && resp.Label == "" && resp.Path == nil && resp.HasNext == nil && len(resp.Extensions) == 0
}
