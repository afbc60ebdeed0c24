package graph

import (
	"context"
	"errors"
	"strings"

	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// authorize is the group if the viewer is an active member whose role
// allows act there (store.Group.Needs): a group the viewer is not in is
// NOT_FOUND, as everywhere; a member whose role falls short is FORBIDDEN,
// with the role it takes in extensions.requiredRole.
func authorize(ctx context.Context, groupID string, act store.Action) (*store.Group, error) {
	g, m, err := loaders.GroupAndMember(ctx, groupID, viewerID(ctx))
	if err != nil {
		return nil, err
	}
	if g == nil || !m.Active() {
		return nil, notFound("group")
	}
	if need := g.Needs(act); !g.RoleOf(m).AtLeast(need) {
		return nil, roleForbidden(need, actionText[act])
	}
	return g, nil
}

// actionText says what an action does, for refusals.
var actionText = map[store.Action]string{
	store.ActionEditGroup:         "change the group's name or settings",
	store.ActionInvite:            "invite people or add placeholders",
	store.ActionConnectChat:       "connect or disconnect the group's Telegram chat",
	store.ActionRemoveMember:      "remove members",
	store.ActionArchive:           "archive or unarchive the group",
	store.ActionManageRoles:       "change roles or what needs an admin",
	store.ActionDelete:            "delete or restore the group",
	store.ActionTransferOwnership: "hand the group over",
}

// roleForbidden is the FORBIDDEN of a member whose role falls short of need.
func roleForbidden(need store.Role, what string) *gqlerror.Error {
	who := "an admin or the owner"
	if need == store.RoleOwner {
		who = "the group's owner"
	}
	e := forbidden("only " + who + " may " + what + " in this group")
	e.Extensions["requiredRole"] = store.RoleName(need)
	return e
}

// viewerRole is the viewer's role in a group they are known to see.
func viewerRole(ctx context.Context, g *store.Group) (store.Role, error) {
	m, err := loaders.Member(ctx, g.ID, viewerID(ctx))
	if err != nil {
		return "", err
	}
	return g.RoleOf(m), nil
}

// roleChanged answers a change of roles: the member as it is now, read
// again with the group (which may have just written its roles down).
func (r *Resolver) roleChanged(ctx context.Context, groupID string, m store.Member, err error) (*store.Member, error) {
	if err != nil {
		return nil, memberError(err, "userId")
	}
	loaders.Wrote(ctx, groupID)
	if g, err := r.Store.CurrentGroup(ctx, groupID); err == nil && g != nil {
		loaders.PrimeGroup(ctx, g)
	}
	loaders.PrimeMember(ctx, &m)
	return &m, nil
}

// memberError is a store refusal about a member as GraphQL says it: an
// impossible request is BAD_USER_INPUT on field, a member who is not there
// NOT_FOUND.
func memberError(err error, field string) error {
	switch {
	case errors.Is(err, store.ErrInvalidInput):
		return badInput(field, "%s", strings.TrimPrefix(err.Error(), store.ErrInvalidInput.Error()+": "))
	case errors.Is(err, store.ErrNotFound):
		return notFound("member")
	}
	return err
}
