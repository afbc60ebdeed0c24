package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestDigestQueue(t *testing.T) {
	f := newFixture(t)
	lines := []store.DigestLine{
		{UserID: "2", GroupID: "g1", Seq: 12, Text: "b"},
		{UserID: "1", GroupID: "g1", Seq: 3, Text: "a"},
		{UserID: "2", GroupID: "g1", Seq: 12, Text: "b"}, // the same event again
	}
	for _, l := range lines {
		require.NoError(t, f.QueueDigestLine(ctx, "daily", l))
	}
	require.NoError(t, f.QueueDigestLine(ctx, "weekly", store.DigestLine{UserID: "3", GroupID: "g2", Seq: 1, Text: "w"}))
	got, err := f.ListDigestLines(ctx, "daily")
	require.NoError(t, err)
	require.Equal(t, []store.DigestLine{lines[1], lines[0]}, got, "by user, once per event")
	require.NoError(t, f.DeleteDigestLines(ctx, "daily", got))
	got, err = f.ListDigestLines(ctx, "daily")
	require.NoError(t, err)
	require.Empty(t, got)
	got, err = f.ListDigestLines(ctx, "weekly")
	require.NoError(t, err)
	require.Len(t, got, 1)
}
