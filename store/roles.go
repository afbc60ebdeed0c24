package store

import (
	"slices"
	"strings"
)

// Roles decide who may do what in a group (docs/groups.md#roles). Every
// active membership has one: the group's creator (an import's importer) is
// its owner, everyone else a member until an admin makes them an admin.
// Recording money is every member's: no role ever gates an expense or a
// settlement. A group's setting (AdminOnly) says which of the configurable
// actions need an admin; deleting the group and handing it over are always
// the owner's, and giving or taking roles always an admin's.
//
// A membership stores its role in `role` ("owner" or "admin"; absent is a
// member); the group's METADATA says with rolesKept that its memberships
// carry their roles. A group written before roles has no rolesKept: its
// creator (the member who joined at the group's creation) is its owner at
// read time, until the first change of a role, or `migrate`, writes the
// roles down. Changes of roles condition on the roles they read, of the
// actor and of whom they change, so that two changes never cross; an owner
// leaves only on condition that another is still an owner.

// Role is a member's standing in a group.
type Role string

// The roles, highest first.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// rank orders the roles: an owner outranks an admin, who outranks a member.
func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleMember:
		return 1
	}
	return 0
}

// AtLeast reports whether r is other or higher.
func (r Role) AtLeast(other Role) bool { return r.rank() >= other.rank() }

// Action is something done to a group that its roles may reserve.
type Action string

// The actions a group's setting may reserve for admins (AdminOnly)…
const (
	ActionEditGroup    Action = "editGroup"    // rename, change the currency or any setting
	ActionInvite       Action = "invite"       // create or revoke invites, add placeholders
	ActionConnectChat  Action = "connectChat"  // connect or disconnect the Telegram chat
	ActionRemoveMember Action = "removeMember" // remove a member or a placeholder
	ActionArchive      Action = "archive"      // archive or unarchive the group
)

// …and those no setting moves: giving roles is an admin's; deleting or
// restoring the group and handing it over are the owner's.
const (
	ActionManageRoles       Action = "manageRoles"
	ActionDelete            Action = "delete"
	ActionTransferOwnership Action = "transferOwnership"
)

// ConfigurableActions are the actions AdminOnly may list, in their order.
var ConfigurableActions = []Action{ActionEditGroup, ActionInvite, ActionConnectChat, ActionRemoveMember, ActionArchive}

// DefaultAdminOnly is what needs an admin in a group that never changed the
// setting: what members could do before roles (edit, invite, connect the
// chat) stays open to them; removing members and archiving, which came with
// roles, are the admins'.
var DefaultAdminOnly = []Action{ActionRemoveMember, ActionArchive}

// Needs is the lowest role that may do act in the group.
func (g *Group) Needs(act Action) Role {
	switch act {
	case ActionDelete, ActionTransferOwnership:
		return RoleOwner
	case ActionManageRoles:
		return RoleAdmin
	}
	if slices.Contains(g.AdminOnlyActions(), act) {
		return RoleAdmin
	}
	return RoleMember
}

// AdminOnlyActions is the group's setting, or DefaultAdminOnly if it has none.
func (g *Group) AdminOnlyActions() []Action {
	if g.AdminOnly == nil {
		return DefaultAdminOnly
	}
	return g.AdminOnly
}

// RoleOf is the member's role in the group; "" for a former member (or
// nobody). A placeholder is a member.
func (g *Group) RoleOf(m *Member) Role {
	switch {
	case !m.Active():
		return ""
	case m.Placeholder:
		return RoleMember
	case g.RolesKept:
		return m.Role.orMember()
	case m.JoinedAt.Equal(g.CreatedAt):
		return RoleOwner // the creator of a group written before roles
	}
	return RoleMember
}

func (r Role) orMember() Role {
	if r == "" {
		return RoleMember
	}
	return r
}

// storedRole is how a membership keeps its role: members keep none.
func storedRole(r Role) string {
	if r == RoleMember {
		return ""
	}
	return string(r)
}

// adminOnlyText is the setting as the group's METADATA keeps it, "-" for "nothing needs an admin" (absent: the default).
func adminOnlyText(acts []Action) string {
	if len(acts) == 0 {
		return "-"
	}
	parts := make([]string, len(acts))
	for i, a := range acts {
		parts[i] = string(a)
	}
	return strings.Join(parts, ",")
}

// adminOnlyOf reads the stored setting back: nil for the default.
func adminOnlyOf(s string) []Action {
	switch s {
	case "":
		return nil
	case "-":
		return []Action{}
	}
	var out []Action
	for _, a := range ConfigurableActions {
		if slices.Contains(strings.Split(s, ","), string(a)) {
			out = append(out, a)
		}
	}
	return out
}

// NormalizeAdminOnly orders a setting as ConfigurableActions does, without
// repeats, so that two equal settings compare equal.
func NormalizeAdminOnly(acts []Action) []Action {
	out := []Action{}
	for _, a := range ConfigurableActions {
		if slices.Contains(acts, a) {
			out = append(out, a)
		}
	}
	return out
}
