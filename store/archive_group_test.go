package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// An archived group refuses every write with ErrArchived, in the write's own
// transaction, and takes them again once unarchived; archiving and
// unarchiving are recorded on the chain once each.
func TestArchivedGroupRefusesWrites(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "30.00", "1", "2")
	st := f.settle(g, "2", "1", "5.00", store.SettlementPending)

	archived, err := f.ArchiveGroup(ctx, g.ID, "1")
	require.NoError(t, err)
	require.NotNil(t, archived.ArchivedAt)
	again, err := f.ArchiveGroup(ctx, g.ID, "2")
	require.NoError(t, err)
	require.Equal(t, archived.ArchivedAt, again.ArchivedAt, "archiving twice changes nothing")
	read, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.True(t, read.Archived(), "reads see it archived")

	writes := map[string]func() error{
		"create expense": func() error {
			_, err := f.CreateExpense(ctx, g.Title, equalExpense(g, "2", "10.00", "1", "2"), "")
			return err
		},
		"delete expense": func() error { _, err := f.DeleteExpense(ctx, e, "1"); return err },
		"create settlement": func() error {
			_, err := f.CreateSettlement(ctx, store.Settlement{GroupID: g.ID, FromUserID: "2", FromUserName: "User 2", ToUserID: "1", ToUserName: "User 1", Amount: amount("1.00"), Status: store.SettlementPending}, "")
			return err
		},
		"complete settlement": func() error {
			done := store.SettlementCompleted
			_, err := f.UpdateSettlement(ctx, st, store.SettlementChange{Status: &done}, "1")
			return err
		},
		"comment": func() error {
			_, err := f.AddComment(ctx, e.Ref(), store.Comment{GroupID: g.ID, ExpenseID: e.ID, AuthorID: "1", AuthorName: "User 1", Body: "hi"})
			return err
		},
		"invite": func() error {
			_, err := f.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1"}, time.Hour, "h")
			return err
		},
		"join": func() error { _, _, err := f.JoinGroup(ctx, g.ID, user("3")); return err },
		"update group": func() error {
			title := "New"
			_, err := f.UpdateGroup(ctx, read, store.GroupChange{Title: &title}, "1")
			return err
		},
	}
	for name, write := range writes {
		err := write()
		require.ErrorIs(t, err, store.ErrArchived, name)
		require.Contains(t, err.Error(), "unarchive", name)
	}

	back, err := f.UnarchiveGroup(ctx, g.ID, "2")
	require.NoError(t, err)
	require.Nil(t, back.ArchivedAt)
	f.expense(g, "2", "10.00", "1", "2")

	events := all(t, 100, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, g.ID, a) })
	var types []store.EventType
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	require.Equal(t, []store.EventType{store.EventExpenseCreated, store.EventGroupUnarchived, store.EventGroupArchived,
		store.EventSettlementCreated, store.EventExpenseCreated, store.EventMemberJoined, store.EventGroupCreated}, types)
}

// While a group is archived its recurring expenses create nothing; once it
// is unarchived they go on from today, the days between skipped.
func TestUnarchiveSkipsTheArchivedDays(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	sr := f.series(equalExpense(g, "1", "10.00", "1", "2"), store.EveryDay, store.FormatDay(seriesNow), nil)
	run, err := f.RunRecurring(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, 1, run.Created)

	_, err = f.ArchiveGroup(ctx, g.ID, "1")
	require.NoError(t, err)
	f.clock.Add(3 * 24 * time.Hour)
	run, err = f.RunRecurring(ctx, 0)
	require.NoError(t, err)
	require.Zero(t, run.Created, "an archived group's series do not run")

	_, err = f.UnarchiveGroup(ctx, g.ID, "1")
	require.NoError(t, err)
	cur, err := f.CurrentSeries(ctx, g.ID, sr.ID)
	require.NoError(t, err)
	require.Equal(t, store.FormatDay(seriesNow.AddDate(0, 0, 3)), store.FormatDay(cur.NextOn), "next is today, the archived days skipped")
	run, err = f.RunRecurring(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, 1, run.Created)
	days, _ := f.occurrences(sr.ID)
	require.Equal(t, []string{"2026-03-10", "2026-03-13"}, days)
}

// A deleted group is gone for every read at once, refuses every write as
// missing, and is restored whole within its window, not after.
func TestDeleteAndRestoreGroup(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	f.expense(g, "1", "30.00", "1", "2")
	_, err := f.ArchiveGroup(ctx, g.ID, "1")
	require.NoError(t, err)

	deleted, err := f.DeleteGroup(ctx, g.ID, "1")
	require.NoError(t, err)
	require.NotNil(t, deleted.DeletedAt)
	require.Equal(t, deleted.DeletedAt.Add(store.GroupRestoreWindow), *deleted.PurgeAfter)

	_, err = f.getGroup(g.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "reads find no group")
	cur, err := f.CurrentGroup(ctx, g.ID)
	require.NoError(t, err)
	require.Nil(t, cur)
	head, err := f.GetGroupHead(ctx, g.ID)
	require.NoError(t, err)
	require.Nil(t, head.Group)
	active, err := f.ActiveMembers(ctx, g.ID, []string{"1", "2"})
	require.NoError(t, err)
	require.Empty(t, active, "live updates: nobody is a member of a deleted group")
	_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, "2", "10.00", "1", "2"), "")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = f.UnarchiveGroup(ctx, g.ID, "1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = f.DeleteGroup(ctx, g.ID, "1")
	require.ErrorIs(t, err, store.ErrNotFound)

	restored, err := f.RestoreGroup(ctx, g.ID, "1")
	require.NoError(t, err)
	require.Nil(t, restored.DeletedAt)
	require.True(t, restored.Archived(), "restored as it was")
	read, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, restored, read)

	_, err = f.DeleteGroup(ctx, g.ID, "1")
	require.NoError(t, err)
	f.clock.Add(store.GroupRestoreWindow + time.Minute)
	_, err = f.RestoreGroup(ctx, g.ID, "1")
	require.ErrorIs(t, err, store.ErrNotFound, "after its window")
	require.False(t, errors.Is(err, store.ErrArchived))
}
