package httpapi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The stream a subscription gets: the client's preference by quality, then
// by the order it listed the types in.
func TestPreferredStream(t *testing.T) {
	for accept, want := range map[string]stream{
		"application/json": streamNone,
		"*/*":              streamNone, // a stream must be named
		"application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed": streamSSE,       // urql
		`multipart/mixed;boundary="graphql";subscriptionSpec=1.0,application/graphql-response+json,application/json;q=0.9`:  streamMultipart, // Apollo Client
		"text/event-stream": streamSSE,
		"multipart/mixed;subscriptionSpec=1.0, text/event-stream": streamMultipart,
		"text/event-stream;q=0.5, multipart/mixed":                streamMultipart,
		"text/event-stream, multipart/mixed;q=0":                  streamSSE,
		"multipart/mixed;subscriptionSpec=2.0":                    streamNone, // not a version spoken here
		"text/event-stream;q=oops":                                streamNone,
	} {
		require.Equal(t, want, parseAccept(accept).preferredStream(), accept)
	}
	require.True(t, parseAccept(`multipart/mixed;boundary=graphql;subscriptionSpec="1.0"`).subscriptionSpec)
	require.False(t, parseAccept("multipart/mixed").subscriptionSpec)
	require.Zero(t, parseAccept("text/event-stream").json)
	require.Equal(t, 0.9, parseAccept("application/graphql-response+json;q=0.9, text/event-stream").json)
}

func TestDefaultMaxConnections(t *testing.T) {
	for nofile, want := range map[uint64]int{
		1024:    512,    // half: the reserve would leave nothing
		4096:    3072,   // 1024 held back
		20000:   16000,  // a fifth held back
		65536:   52429,  // a fifth held back
		1 << 63: 838861, // "unlimited" counts as 2^20
		0:       6554,   // unknown counts as 8192
	} {
		require.Equal(t, want, maxConnectionsFor(nofile), "RLIMIT_NOFILE %d", nofile)
	}
	// This process's own, whatever it is, leaves room for everything else.
	require.Positive(t, DefaultMaxConnections())
	require.Less(t, uint64(DefaultMaxConnections()), max(openFileLimit(), unknownLimit))
}
