package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
)

// encodeResponse is json.Marshal(resp), byte for byte. A response that is
// only data (every screen that succeeds) is written around the executor's
// JSON as it is: json.Marshal would scan the whole document again to
// compact it (the executor writes no insignificant space) and copy it
// once more, for nothing but the escaping of <, >, & and U+2028/U+2029,
// which json.HTMLEscape does on its own.
func encodeResponse(resp *graphql.Response) []byte {
	if len(resp.Errors) > 0 || len(resp.Data) == 0 || resp.Label != "" || resp.Path != nil || resp.HasNext != nil || len(resp.Extensions) > 0 {
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
