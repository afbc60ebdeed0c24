package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListChangesPagesTheLogWithoutGapsOrRepeats(t *testing.T) {
	s := dynamotest.Store(t)
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	for i := range 6 {
		title := "Trip " + string(rune('A'+i))
		g, err = s.UpdateGroup(ctx, g, store.GroupChange{Title: &title}, "1")
		require.NoError(t, err)
	}
	// 7 events: the creation and six renames, read three at a time.
	var seqs []int64
	since := ""
	for range 5 {
		page, err := s.ListChanges(ctx, g.ID, since, 3)
		require.NoError(t, err)
		for _, ev := range page.Events {
			seqs = append(seqs, ev.Seq)
		}
		since = page.Token
		if !page.HasMore {
			break
		}
	}
	require.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7}, seqs)

	caughtUp, err := s.ListChanges(ctx, g.ID, since, 3)
	require.NoError(t, err)
	require.Empty(t, caughtUp.Events)
	require.False(t, caughtUp.HasMore)
	require.Equal(t, since, caughtUp.Token, "the same token again when nothing is new, whatever the second")

	head, err := s.HeadSyncToken(ctx, g.ID)
	require.NoError(t, err)
	after, err := s.ListChanges(ctx, g.ID, head, 100)
	require.NoError(t, err)
	require.Empty(t, after.Events)

	// A token names its group and is signed.
	other, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Other", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	_, err = s.ListChanges(ctx, other.ID, since, 3)
	require.ErrorIs(t, err, store.ErrBadCursor)
	_, err = s.ListChanges(ctx, g.ID, since[:len(since)-2]+"xx", 3)
	require.ErrorIs(t, err, store.ErrBadCursor)
}

func TestSyncTokensExpireAfterTheRetention(t *testing.T) {
	c := testclock.At(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{Now: c.Now, SyncRetention: 48 * time.Hour})
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	token := s.SyncToken(g.ID, 1)

	c.Add(48 * time.Hour)
	_, err = s.ListChanges(ctx, g.ID, token, 10)
	require.NoError(t, err, "usable for the whole retention")
	c.Add(time.Second)
	_, err = s.ListChanges(ctx, g.ID, token, 10)
	require.ErrorIs(t, err, store.ErrSyncTokenExpired)
	require.ErrorContains(t, err, "reload")
}
