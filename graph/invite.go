package graph

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// The bounds of a new invite.
const (
	defaultInviteLife = 7 * 24 * time.Hour
	minInviteLife     = time.Minute
	maxInviteLife     = 30 * 24 * time.Hour
	maxInviteUses     = 1000
)

// claimCallBudget replaces the request's DynamoDB call budget for a
// placeholder's claim, which takes about two calls per expense it moves:
// bounded by the group's own items rather than by what was asked, and
// resumable if it runs out of time.
const claimCallBudget = 5000

// invalidInvite is the one answer to an invite that does not admit: unknown,
// expired, revoked or used up alike, and nothing about the group.
func invalidInvite() error {
	return codedError(CodeNotFound, "invite not found: it may have expired, been revoked or used up; ask a member for a new one")
}

// newInvite checks a createInvite input against the group g.
func newInvite(ctx context.Context, g *store.Group, in *model.CreateInviteInput) (store.Invite, time.Duration, error) {
	if in == nil {
		in = &model.CreateInviteInput{}
	}
	inv := store.Invite{GroupID: g.ID, CreatedBy: viewerID(ctx)}
	life := defaultInviteLife
	if in.ExpiresIn != nil {
		life = time.Duration(*in.ExpiresIn) * time.Second
		if life < minInviteLife || life > maxInviteLife {
			return store.Invite{}, 0, badInput("input.expiresIn", "must be %d to %d seconds", int(minInviteLife.Seconds()), int(maxInviteLife.Seconds()))
		}
	}
	if in.PlaceholderID != nil {
		id := *in.PlaceholderID
		var m *store.Member
		var err error
		if store.IsPlaceholderID(id) && memberUserIDPattern.MatchString(id) {
			if m, err = loaders.Member(ctx, g.ID, id); err != nil {
				return store.Invite{}, 0, err
			}
		}
		if !m.Available() || !m.Placeholder {
			return store.Invite{}, 0, badInput("input.placeholderId", "is not an unclaimed placeholder of this group")
		}
		inv.PlaceholderID, inv.MaxUses = id, 1
	}
	if in.MaxUses != nil {
		if *in.MaxUses < 1 || *in.MaxUses > maxInviteUses {
			return store.Invite{}, 0, badInput("input.maxUses", "must be 1 to %d", maxInviteUses)
		}
		inv.MaxUses = *in.MaxUses
	}
	return inv, life, nil
}

// parseInviteID splits an Invite id; ok is false if id is not one.
func parseInviteID(id string) (groupID, inviteID string, ok bool) {
	groupID, inviteID, found := strings.Cut(id, ":")
	return groupID, inviteID, found && uuidPattern.MatchString(groupID) && uuidPattern.MatchString(inviteID)
}

// joinWithInvite joins the group of the invite secret, and takes the place of
// the placeholder the invite was made for, if it is still unclaimed.
func (r *Resolver) joinWithInvite(ctx context.Context, secret string) (*store.Member, error) {
	if !auth.IsInviteSecret(secret) {
		return nil, invalidInvite()
	}
	m, inv, _, err := r.Store.JoinWithInvite(ctx, auth.HashInviteSecret(secret), newMember(ctx))
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalidInvite()
	}
	if err != nil {
		return nil, err
	}
	loaders.Wrote(ctx, m.GroupID)
	if inv.PlaceholderID != "" {
		ph, err := loaders.Member(ctx, m.GroupID, inv.PlaceholderID)
		if err != nil {
			return nil, err
		}
		if ph.Available() {
			if _, err := r.Store.ClaimPlaceholder(store.WithCallBudget(ctx, claimCallBudget), m.GroupID, inv.PlaceholderID, m); err != nil {
				return nil, err
			}
			loaders.Wrote(ctx, m.GroupID)
		}
	}
	loaders.PrimeMember(ctx, &m)
	return &m, nil
}
