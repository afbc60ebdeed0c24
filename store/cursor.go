package store

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// cursorCodec turns the DynamoDB key where a page position lies into an
// opaque, signed string and back. A cursor names the list it belongs to, so
// one list's cursor is refused by another (say, another group's expenses).
type cursorCodec struct{ secret []byte }

// Cursor is the position of one item of a page. It is encoded and signed
// only when asked for (String): most screens never ask for the cursor of
// every item they show.
type Cursor struct {
	codec cursorCodec
	list  string
	keys  []map[string]string
}

// String is the cursor as clients pass it back in PageArgs.After.
func (c Cursor) String() string {
	if c.list == "" {
		return ""
	}
	return c.codec.encode(c.list, c.keys...)
}

// at is the cursor of the position keys in list.
func (c cursorCodec) at(list string, keys ...map[string]string) Cursor {
	return Cursor{codec: c, list: list, keys: keys}
}

// cursorPayload is what a cursor carries: the list's identity and one key per
// merged stream (one for a plain query; two for the activity timeline).
type cursorPayload struct {
	List string              `json:"l"`
	Keys []map[string]string `json:"k"`
}

// macLen is how many bytes of the HMAC-SHA256 a cursor keeps: 128 bits is
// plenty against forgery and keeps cursors short.
const macLen = 16

var b64 = base64.RawURLEncoding

func (c cursorCodec) encode(list string, keys ...map[string]string) string {
	body, _ := json.Marshal(cursorPayload{List: list, Keys: keys}) // strings only: cannot fail
	return b64.EncodeToString(body) + "." + b64.EncodeToString(c.mac(body))
}

// decode verifies cursor and returns its keys, which number exactly want.
func (c cursorCodec) decode(list, cursor string, want int) ([]map[string]string, error) {
	bodyPart, macPart, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	body, err1 := b64.DecodeString(bodyPart)
	mac, err2 := b64.DecodeString(macPart)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, c.mac(body)) {
		return nil, fmt.Errorf("%w: it was altered or not issued by this server", ErrBadCursor)
	}
	var p cursorPayload
	if err := json.Unmarshal(body, &p); err != nil || len(p.Keys) != want {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	if p.List != list {
		return nil, fmt.Errorf("%w: it belongs to a different list", ErrBadCursor)
	}
	return p.Keys, nil
}

func (c cursorCodec) mac(body []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write(body)
	return m.Sum(nil)[:macLen]
}

// keyOf picks the named string attributes out of an item: the key DynamoDB
// needs as ExclusiveStartKey to continue right after that item.
func keyOf(item map[string]types.AttributeValue, attrs []string) map[string]string {
	key := make(map[string]string, len(attrs))
	for _, a := range attrs {
		if v, ok := item[a].(*types.AttributeValueMemberS); ok {
			key[a] = v.Value
		}
	}
	return key
}

// startKey turns a decoded cursor key back into an ExclusiveStartKey, checking
// it has exactly the attributes the query's index needs.
func startKey(key map[string]string, attrs []string) (map[string]types.AttributeValue, error) {
	if len(key) != len(attrs) {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	av := make(map[string]types.AttributeValue, len(attrs))
	for _, a := range attrs {
		v, ok := key[a]
		if !ok {
			return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
		}
		av[a] = &types.AttributeValueMemberS{Value: v}
	}
	return av, nil
}
