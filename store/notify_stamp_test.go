package store_test

import (
	"slices"
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
	set := func(g store.Group, on bool) store.Group {
		t.Helper()
		next, err := f.UpdateGroup(ctx, g, store.GroupChange{WeeklyReminder: &on}, "1")
		require.NoError(t, err)
		return next
	}
	g1, g2, g3 := f.group("1"), f.group("1"), f.group("1")
	set(g2, true)
	g1 = set(set(g1, true), true) // the same setting again: nothing changes
	set(set(g3, true), false)
	ids, err := f.WeeklyReminderGroups(ctx)
	require.NoError(t, err)
	want := []string{g1.ID, g2.ID}
	slices.Sort(want)
	require.Equal(t, want, ids, "the list follows the setting, written with it")
	require.True(t, g1.WeeklyReminder)
}
