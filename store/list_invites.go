package store

import (
	"context"
	"math"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// liveInvitesQuery reads the group's invites that expire after now, strongly
// consistent (so that an invite just created or revoked shows as such),
// keeping those filter allows. The key condition starts past every expired
// invite (keys.go), so expired ones cost nothing however many TTL has not
// purged yet; the filter drops the used-up and revoked ones, and old-shape
// invites that have expired.
func (s *Store) liveInvitesQuery(groupID, now, filter string, values map[string]types.AttributeValue) listQuery {
	from, to := liveInviteRange(now)
	vals := map[string]types.AttributeValue{":pk": str(groupPK(groupID)), ":from": str(from), ":to": str(to)}
	for k, v := range values {
		vals[k] = v
	}
	return listQuery{list: "invites:" + groupID, keyCond: tableRangeCond, values: vals, filter: filter, forward: true, consistent: true}
}

// ListInvites returns the group's live invites at now, all of them, newest
// first. One Query reads them, whatever the number of expired invites TTL
// has not purged yet.
func (s *Store) ListInvites(ctx context.Context, groupID string) ([]Invite, error) {
	at := s.now()
	now := formatTime(at)
	items, err := s.collect(ctx, s.liveInvitesQuery(groupID, now, inviteLive, map[string]types.AttributeValue{":now": str(now)}), nil, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	all, err := decodeAll(items, (*inviteRecord).invite)
	if err != nil {
		return nil, err
	}
	live := slices.DeleteFunc(all, func(i Invite) bool { return !i.Live(at) })
	slices.SortFunc(live, func(a, b Invite) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return live, nil
}

// findInvite is the group's unexpired invite with this id (revoked and used
// up ones included), or nil, read strongly consistent. An invite's key
// holds its expiry, which its id alone does not tell, so it is looked for
// among the unexpired ones.
func (s *Store) findInvite(ctx context.Context, groupID, inviteID string) (*Invite, error) {
	now := formatTime(s.now())
	items, err := s.collect(ctx, s.liveInvitesQuery(groupID, now, attrInviteID+" = :id AND "+attrInviteExpires+" > :now",
		map[string]types.AttributeValue{":id": str(inviteID), ":now": str(now)}), nil, math.MaxInt32) // a Limit would count the invites filtered out
	if err != nil || len(items) == 0 {
		return nil, err
	}
	found, err := decodeAll(items, (*inviteRecord).invite)
	if err != nil {
		return nil, err
	}
	return &found[0], nil
}

// GetInvites reads invites by key, aligned with refs; nil where one does
// not exist (any more: TTL purges an invite after it expires).
func (s *Store) GetInvites(ctx context.Context, refs []InviteRef) ([]*Invite, error) {
	keys := make([]map[string]types.AttributeValue, len(refs))
	for i, r := range refs {
		keys[i] = tableKey(groupPK(r.GroupID), r.sk())
	}
	items, err := s.batchGet(ctx, dedupeKeys(keys))
	if err != nil {
		return nil, err
	}
	// Ids are UUIDs, unique across groups.
	return alignByID(items, refs, func(r InviteRef) string { return r.ID }, (*inviteRecord).invite, func(i *Invite) string { return i.ID })
}
