package store_test

import (
	"errors"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// eventTypes lists the group's events, newest first.
func (f fixture) eventTypes(groupID string) []store.Event {
	f.t.Helper()
	evs := all(f.t, 50, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, groupID, a) })
	_, err := f.VerifyChain(ctx, groupID)
	require.NoError(f.t, err)
	return evs
}

func TestConnectTelegramChat(t *testing.T) {
	f := newFixture(t)
	a, b := f.group("1", "2"), f.group("3")

	g, err := f.ConnectTelegramChat(ctx, a.ID, "-1001234567890123", "2", "ru")
	require.NoError(t, err)
	require.Equal(t, "-1001234567890123", g.ChatID)
	read, err := f.getGroup(a.ID)
	require.NoError(t, err)
	require.Equal(t, "-1001234567890123", read.ChatID)
	require.Equal(t, "ru", read.ChatLanguage)
	require.Equal(t, "2", read.ChatConnectedBy)

	owner, err := f.GroupOfChat(ctx, "-1001234567890123")
	require.NoError(t, err)
	require.Equal(t, a.ID, owner)
	none, err := f.GroupOfChat(ctx, "-42")
	require.NoError(t, err)
	require.Empty(t, none)

	// Again: a no-op, no second event.
	_, err = f.ConnectTelegramChat(ctx, a.ID, "-1001234567890123", "1", "en")
	require.NoError(t, err)
	evs := f.eventTypes(a.ID)
	require.Equal(t, store.EventChatConnected, evs[0].Type)
	require.Equal(t, "2", evs[0].ActorID)
	require.NotEqual(t, store.EventChatConnected, evs[1].Type)

	// The chat is a's: b cannot have it, and a cannot have a second one.
	_, err = f.ConnectTelegramChat(ctx, b.ID, "-1001234567890123", "3", "")
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = f.ConnectTelegramChat(ctx, a.ID, "-77", "1", "")
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = f.ConnectTelegramChat(ctx, "nope", "-78", "1", "")
	require.ErrorIs(t, err, store.ErrNotFound)
	owner, err = f.GroupOfChat(ctx, "-1001234567890123")
	require.NoError(t, err)
	require.Equal(t, a.ID, owner)
	read, err = f.getGroup(b.ID)
	require.NoError(t, err)
	require.Empty(t, read.ChatID)
}

func TestDisconnectTelegramChat(t *testing.T) {
	tests := []struct {
		name      string
		chatID    string // as the caller names it
		actor     string
		wantGone  bool
		wantActor string
	}{
		{name: "by a member", actor: "1", wantGone: true, wantActor: "1"},
		{name: "by Telegram", chatID: "-5", wantGone: true, wantActor: "2"},
		{name: "another chat", chatID: "-6", actor: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			g := f.group("1", "2")
			_, err := f.ConnectTelegramChat(ctx, g.ID, "-5", "2", "es")
			require.NoError(t, err)
			got, err := f.DisconnectTelegramChat(ctx, g.ID, tt.chatID, tt.actor)
			require.NoError(t, err)
			owner, err := f.GroupOfChat(ctx, "-5")
			require.NoError(t, err)
			evs := f.eventTypes(g.ID)
			if !tt.wantGone {
				require.Equal(t, "-5", got.ChatID)
				require.Equal(t, g.ID, owner)
				require.Equal(t, store.EventChatConnected, evs[0].Type)
				return
			}
			require.Empty(t, got.ChatID)
			require.Empty(t, owner)
			read, err := f.getGroup(g.ID)
			require.NoError(t, err)
			require.Empty(t, read.ChatID)
			require.Empty(t, read.ChatLanguage)
			require.Equal(t, store.EventChatDisconnected, evs[0].Type)
			require.Equal(t, tt.wantActor, evs[0].ActorID)
			// Disconnected twice: nothing more happens; the chat is free again.
			_, err = f.DisconnectTelegramChat(ctx, g.ID, "", "1")
			require.NoError(t, err)
			require.Len(t, f.eventTypes(g.ID), len(evs))
			other := f.group("9")
			_, err = f.ConnectTelegramChat(ctx, other.ID, "-5", "9", "")
			require.NoError(t, err)
		})
	}
}

func TestMoveTelegramChat(t *testing.T) {
	f := newFixture(t)
	g, other := f.group("1"), f.group("2")
	_, err := f.ConnectTelegramChat(ctx, g.ID, "-4000000000", "1", "")
	require.NoError(t, err)
	_, err = f.ConnectTelegramChat(ctx, other.ID, "-1009", "2", "")
	require.NoError(t, err)

	moved, err := f.MoveTelegramChat(ctx, "-4000000000", "-1001000000001")
	require.NoError(t, err)
	require.Equal(t, g.ID, moved)
	read, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, "-1001000000001", read.ChatID)
	for chat, want := range map[string]string{"-4000000000": "", "-1001000000001": g.ID} {
		owner, err := f.GroupOfChat(ctx, chat)
		require.NoError(t, err)
		require.Equal(t, want, owner, chat)
	}
	// The same migration again (update and refused send both say it): where it is stands.
	moved, err = f.MoveTelegramChat(ctx, "-4000000000", "-1001000000001")
	require.NoError(t, err)
	require.Empty(t, moved)
	// Onto a chat another group has: refused, nothing moves.
	_, err = f.MoveTelegramChat(ctx, "-1001000000001", "-1009")
	require.True(t, errors.Is(err, store.ErrConflict), err)
	read, err = f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, "-1001000000001", read.ChatID)
}

func TestDirectMessages(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.SetDirectMessages(ctx, "10", false))
	require.NoError(t, f.SetDirectMessages(ctx, "11", true))
	require.NoError(t, f.SetDirectMessages(ctx, "12", false))
	require.NoError(t, f.SetDirectMessages(ctx, "12", true))
	got, err := f.DirectMessagesAllowed(ctx, []string{"10", "11", "12", "13", "10"})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"10": false, "11": true, "12": true, "13": true}, got)
	empty, err := f.DirectMessagesAllowed(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, empty)
}

func TestNotificationSettings(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	m, err := f.getMember(g.ID, "1")
	require.NoError(t, err)
	require.False(t, m.Muted)
	require.Equal(t, store.DigestNone, m.Digest)

	yes, daily := true, store.DigestDaily
	m, err = f.UpdateNotificationSettings(ctx, g.ID, "1", &yes, nil)
	require.NoError(t, err)
	require.True(t, m.Muted)
	require.Equal(t, store.DigestNone, m.Digest)
	m, err = f.UpdateNotificationSettings(ctx, g.ID, "1", nil, &daily)
	require.NoError(t, err)
	require.True(t, m.Muted)
	require.Equal(t, store.DigestDaily, m.Digest)
	members, err := f.ListMembers(ctx, g.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	for _, m := range members.Items {
		require.Equal(t, m.UserID == "1", m.Muted, m.UserID)
	}
	m, err = f.UpdateNotificationSettings(ctx, g.ID, "1", nil, nil)
	require.NoError(t, err)
	require.Equal(t, store.DigestDaily, m.Digest)

	bad := store.Digest("hourly")
	_, err = f.UpdateNotificationSettings(ctx, g.ID, "1", nil, &bad)
	require.Error(t, err)
	_, err = f.UpdateNotificationSettings(ctx, g.ID, "3", &yes, nil)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = f.UpdateNotificationSettings(ctx, "nope", "1", &yes, nil)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestMemberLanguage(t *testing.T) {
	f := newFixture(t)
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, Creator: store.NewMember{UserID: "1", Name: "A", Language: "es"}})
	require.NoError(t, err)
	m, err := f.getMember(g.ID, "1")
	require.NoError(t, err)
	require.Equal(t, "es", m.Language)
	require.NoError(t, f.SetMemberLanguage(ctx, g.ID, "1", "ru"))
	require.NoError(t, f.SetMemberLanguage(ctx, g.ID, "1", "ru")) // unchanged: no error
	require.NoError(t, f.SetMemberLanguage(ctx, g.ID, "2", "ru")) // not a member: nothing written
	m, err = f.getMember(g.ID, "1")
	require.NoError(t, err)
	require.Equal(t, "ru", m.Language)
	_, err = f.getMember(g.ID, "2")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestWeeklyReminder(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")
	on := true
	g, err := f.UpdateGroup(ctx, g, store.GroupChange{WeeklyReminder: &on}, "1")
	require.NoError(t, err)
	require.True(t, g.WeeklyReminder)
	read, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.True(t, read.WeeklyReminder)
	evs := f.eventTypes(g.ID)
	require.Equal(t, store.EventGroupUpdated, evs[0].Type)
	require.Equal(t, store.FieldWeeklyReminder, evs[0].Changes[0].Field)
}

func TestCreateGroupWithChat(t *testing.T) {
	f := newFixture(t)
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, ChatID: "-100555", Creator: user("1")})
	require.NoError(t, err)
	owner, err := f.GroupOfChat(ctx, "-100555")
	require.NoError(t, err)
	require.Equal(t, g.ID, owner)
	_, _, err = f.CreateGroup(ctx, store.NewGroup{Title: "T2", Currency: usd, ChatID: "-100555", Creator: user("2")})
	require.ErrorIs(t, err, store.ErrConflict)
	other := f.group("3")
	_, err = f.ConnectTelegramChat(ctx, other.ID, "-100555", "3", "")
	require.ErrorIs(t, err, store.ErrConflict)
	// Disconnecting the created group frees the chat.
	_, err = f.DisconnectTelegramChat(ctx, g.ID, "", "1")
	require.NoError(t, err)
	_, err = f.ConnectTelegramChat(ctx, other.ID, "-100555", "3", "")
	require.NoError(t, err)
}
