package store_test

import (
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestClaimStampOncePerPeriod(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		claim  func(kind, period string) (bool, error)
		period string
		want   bool
	}{
		{func(k, p string) (bool, error) { return f.ClaimGroupStamp(ctx, "g1", k, p, time.Hour) }, "2026-11-25", true},
		{func(k, p string) (bool, error) { return f.ClaimGroupStamp(ctx, "g1", k, p, time.Hour) }, "2026-11-25", false},
		{func(k, p string) (bool, error) { return f.ClaimGroupStamp(ctx, "g1", k, p, time.Hour) }, "2026-11-26", true},
		{func(k, p string) (bool, error) { return f.ClaimGroupStamp(ctx, "g2", k, p, time.Hour) }, "2026-11-25", true},
		{func(k, p string) (bool, error) { return f.ClaimUserStamp(ctx, "g1", k, p, time.Hour) }, "2026-11-25", true},
		{func(k, p string) (bool, error) { return f.ClaimUserStamp(ctx, "g1", k, p, time.Hour) }, "2026-11-25", false},
	} {
		got, err := tc.claim(store.StampReminder, tc.period)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	require.NoError(t, f.ReleaseGroupStamp(ctx, "g1", store.StampReminder, "2026-11-25"))
	got, err := f.ClaimGroupStamp(ctx, "g1", store.StampReminder, "2026-11-25", time.Hour)
	require.NoError(t, err)
	require.True(t, got, "a released stamp can be claimed again")
}

func TestWeeklyReminderList(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.ListWeeklyReminder(ctx, "g2", true))
	require.NoError(t, f.ListWeeklyReminder(ctx, "g1", true))
	require.NoError(t, f.ListWeeklyReminder(ctx, "g1", true))
	require.NoError(t, f.ListWeeklyReminder(ctx, "g3", true))
	require.NoError(t, f.ListWeeklyReminder(ctx, "g3", false))
	ids, err := f.WeeklyReminderGroups(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"g1", "g2"}, ids)
}
