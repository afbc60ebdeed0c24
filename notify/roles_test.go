package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A member removed by an admin is told to the chat as such; changes of
// roles are not told (they are the group's housekeeping, read in the app).
func TestRemovedMembersAreToldAndRolesAreNot(t *testing.T) {
	e := newEnv(t, 1, 300*time.Millisecond)
	g := e.group()
	s := e.stores[0]
	_, err := s.SetMemberRole(ctx, g.ID, ann, boris, store.RoleAdmin)
	require.NoError(t, err)
	_, err = s.RemoveMember(ctx, g.ID, ann, boris)
	require.NoError(t, err)
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), "\n"), "was removed from the group") },
		"the removal told")
	time.Sleep(2 * e.window)
	all := strings.Join(e.to(chat), "\n")
	require.Equal(t, 1, strings.Count(all, "Boris was removed from the group"), all)
	require.NotContains(t, strings.ToLower(all), "admin")
}
