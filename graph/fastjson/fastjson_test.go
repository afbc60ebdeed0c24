package fastjson

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/stretchr/testify/require"
)

// marshal is what a gqlgen Marshaler writes.
func marshal(m graphql.Marshaler) string {
	var b bytes.Buffer
	m.MarshalGQL(&b)
	return b.String()
}

// String quotes every string as graphql.MarshalString does: control
// characters, quotes, backslashes, HTML, line separators, invalid UTF-8.
func TestStringIsGraphQLsQuoting(t *testing.T) {
	cases := []string{"", "plain", `"quoted" \ back`, "\n\r\t\b\f\x00\x01\x1f\x7f", "<b>&amp;</b>", "Zoë 😀 \u2028\u2029", "\xff\xfe bad utf-8 \xc3"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var b Buffer
		b.String(s)
		require.Equal(t, marshal(graphql.MarshalString(s)), string(b.B), "%q", s)
		var c Buffer
		c.Concat(s[:len(s)/2], s[len(s)/2:])
		require.Equal(t, string(b.B), string(c.B), "%q", s)
	}
}

// The other scalars as gqlgen writes them, and the punctuation.
func TestScalarsAndPunctuation(t *testing.T) {
	var b Buffer
	b.OpenObject()
	b.Key("a")
	b.Int(-42)
	b.Key("b")
	b.Bool(true)
	b.Key("c")
	b.OptString("")
	b.Key("d")
	b.OpenList()
	for _, s := range []string{"x", "y"} {
		b.Elem()
		b.OptString(s)
	}
	b.CloseList()
	b.Key("e")
	b.OpenList()
	b.CloseList()
	b.Key("t")
	b.Time(time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.FixedZone("x", 3600)), "2006-01-02T15:04:05.000Z")
	b.CloseObject()
	require.Equal(t, `{"a":`+marshal(graphql.MarshalInt(-42))+`,"b":`+marshal(graphql.MarshalBoolean(true))+
		`,"c":null,"d":["x","y"],"e":[],"t":"2026-01-02T02:04:05.678Z"}`, string(b.B))
}
