package store_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestSetMemberRole(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	role := func(id string) store.Role {
		t.Helper()
		got, err := f.getGroup(g.ID)
		require.NoError(t, err)
		m, err := f.getMember(g.ID, id)
		require.NoError(t, err)
		return got.RoleOf(&m)
	}
	require.Equal(t, store.RoleOwner, role("1"), "the creator")
	require.Equal(t, store.RoleMember, role("2"))

	for _, c := range []struct {
		name        string
		actor, user string
		to          store.Role
		err         error
		after       store.Role
	}{
		{"a member gives no role", "2", "3", store.RoleAdmin, store.ErrForbidden, store.RoleMember},
		{"the owner makes an admin", "1", "2", store.RoleAdmin, nil, store.RoleAdmin},
		{"an admin makes an admin", "2", "3", store.RoleAdmin, nil, store.RoleAdmin},
		{"an admin makes no owner", "2", "3", store.RoleOwner, store.ErrForbidden, store.RoleAdmin},
		{"an admin touches no owner", "2", "1", store.RoleMember, store.ErrForbidden, store.RoleOwner},
		{"the last owner stays", "1", "1", store.RoleAdmin, store.ErrConflict, store.RoleOwner},
		{"an admin takes a role back", "2", "3", store.RoleMember, nil, store.RoleMember},
		{"nobody there", "1", "9", store.RoleAdmin, store.ErrNotFound, ""},
		{"a stranger", "9", "2", store.RoleMember, store.ErrNotFound, store.RoleAdmin},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.SetMemberRole(ctx, g.ID, c.actor, c.user, c.to)
			if c.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, c.err)
			}
			if c.after != "" {
				require.Equal(t, c.after, role(c.user))
			}
		})
	}

	_, err := f.TransferOwnership(ctx, g.ID, "2", "3")
	require.ErrorIs(t, err, store.ErrForbidden, "an admin hands over nothing")
	_, err = f.TransferOwnership(ctx, g.ID, "1", "3")
	require.NoError(t, err)
	require.Equal(t, store.RoleOwner, role("3"))
	require.Equal(t, store.RoleAdmin, role("1"))
}

// TestOwnersNeverCross: two owners each demoting the other at once can
// both read that the other owner remains; the conditions on the roles they
// read let at most one of them through, so the group always keeps an owner.
func TestOwnersNeverCross(t *testing.T) {
	f := newFixture(t)
	for range 5 {
		g := f.group("1", "2")
		_, err := f.SetMemberRole(ctx, g.ID, "1", "2", store.RoleOwner)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, pair := range [][2]string{{"1", "2"}, {"2", "1"}} {
			wg.Go(func() { _, errs[i] = f.SetMemberRole(ctx, g.ID, pair[0], pair[1], store.RoleMember) })
		}
		wg.Wait()
		require.False(t, errs[0] == nil && errs[1] == nil, "both stepped down: %v", errs)
		got, err := f.getGroup(g.ID)
		require.NoError(t, err)
		owners := 0
		for _, id := range []string{"1", "2"} {
			m, err := f.getMember(g.ID, id)
			require.NoError(t, err)
			if got.RoleOf(&m) == store.RoleOwner {
				owners++
			}
		}
		require.GreaterOrEqual(t, owners, 1)
	}
}

func TestRemoveMemberStore(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	f.expense(g, "1", "10.00", "1", "2")
	_, err := f.RemoveMember(ctx, g.ID, "1", "2")
	require.ErrorIs(t, err, store.ErrConflict, "2 owes")
	_, err = f.RemoveMember(ctx, g.ID, "2", "3")
	require.ErrorIs(t, err, store.ErrForbidden, "members remove nobody by default")
	_, err = f.RemoveMember(ctx, g.ID, "3", "1")
	require.ErrorIs(t, err, store.ErrForbidden)
	m, err := f.RemoveMember(ctx, g.ID, "1", "3")
	require.NoError(t, err)
	require.NotNil(t, m.LeftAt)
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.MemberCount)
	_, err = f.RemoveMember(ctx, g.ID, "1", "3")
	require.ErrorIs(t, err, store.ErrNotFound, "already gone")
}

func TestPassOwnership(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	next, err := f.PassOwnership(ctx, g.ID, "2")
	require.NoError(t, err)
	require.Empty(t, next, "2 owns nothing")
	next, err = f.PassOwnership(ctx, g.ID, "1")
	require.NoError(t, err)
	require.Equal(t, "2", next, "the longest-standing member after the owner")
	got, err := f.getGroup(g.ID)
	require.NoError(t, err)
	m, err := f.getMember(g.ID, "2")
	require.NoError(t, err)
	require.Equal(t, store.RoleOwner, got.RoleOf(&m))
	next, err = f.PassOwnership(ctx, g.ID, "1")
	require.NoError(t, err)
	require.Empty(t, next, "1 is no longer the only owner")
}
