package store_test

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCreateGroup(t *testing.T) {
	f := newFixture(t)
	g, m, err := f.CreateGroup(ctx, store.NewGroup{Title: "Trip", ChatID: "-1001234567890", Currency: usd, Creator: user("111")})
	require.NoError(t, err)
	require.NotEmpty(t, g.ID)
	require.Equal(t, 1, g.MemberCount)
	require.Equal(t, "111", m.UserID)
	require.Equal(t, g.ID, m.GroupID)

	got, err := f.getGroup(g.ID) // access pattern 1
	require.NoError(t, err)
	require.Equal(t, g, got)

	member, err := f.getMember(g.ID, "111")
	require.NoError(t, err)
	require.Equal(t, m, member)
}

func TestCreateGroupRejectsNonTelegramUserID(t *testing.T) {
	f := newFixture(t)
	_, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: user("alice")})
	require.Error(t, err)
}

func TestGetGroups(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for range 3 {
		ids = append(ids, f.group("1").ID)
	}
	// Missing ids and duplicates line up with the request.
	req := []string{ids[2], "missing", ids[0], ids[2], ids[1]}
	got, err := f.GetGroups(ctx, req)
	require.NoError(t, err)
	require.Len(t, got, len(req))
	require.Nil(t, got[1])
	for i, id := range req {
		if i != 1 {
			require.Equal(t, id, got[i].ID)
		}
	}
}
