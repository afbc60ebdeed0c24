package store

import (
	"context"
	"slices"
)

// maxListedInvites bounds what one group's invite list reads; invites
// expire, so only a group that mints them by the hundred reaches it.
const maxListedInvites = 100

// ListInvites returns the group's live invites at now, newest first, read
// strongly consistent so that an invite just created or revoked shows as such.
func (s *Store) ListInvites(ctx context.Context, groupID string) ([]Invite, error) {
	items, err := s.collect(ctx, listQuery{
		list:       "invites:" + groupID,
		keyCond:    tablePrefixCond,
		values:     prefixValues(groupPK(groupID), prefixInvite),
		forward:    true,
		consistent: true,
	}, nil, maxListedInvites)
	if err != nil {
		return nil, err
	}
	all, err := decodeAll(items, (*inviteRecord).invite)
	if err != nil {
		return nil, err
	}
	now := s.now()
	live := slices.DeleteFunc(all, func(i Invite) bool { return !i.Live(now) })
	slices.SortFunc(live, func(a, b Invite) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return live, nil
}
