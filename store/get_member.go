package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// getMember reads one membership (access pattern 3), strongly consistent
// when a write just changed it.
func (s *Store) getMember(ctx context.Context, groupID, userID string, consistent bool) (Member, error) {
	item, ok, err := s.getItem(ctx, groupPK(groupID), memberSK(userID), consistent)
	if err != nil {
		return Member{}, err
	}
	if !ok {
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	}
	ms, err := decodeAll([]map[string]types.AttributeValue{item}, (*memberRecord).member)
	if err != nil {
		return Member{}, err
	}
	return ms[0], nil
}

// GetMembers reads many memberships (of any groups) with as few BatchGetItem
// calls as possible. The result is aligned with keys; a missing one is nil.
func (s *Store) GetMembers(ctx context.Context, keys []MemberKey) ([]*Member, error) {
	return s.getMembers(ctx, keys, false)
}

// getMembers is GetMembers with the choice of strongly consistent reads.
func (s *Store) getMembers(ctx context.Context, keys []MemberKey, consistent bool) ([]*Member, error) {
	avKeys := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		avKeys[i] = tableKey(groupPK(k.GroupID), memberSK(k.UserID))
	}
	items, err := s.batchRead(ctx, dedupeKeys(avKeys), consistent)
	if err != nil {
		return nil, err
	}
	members, err := decodeAll(items, (*memberRecord).member)
	if err != nil {
		return nil, err
	}
	byKey := make(map[MemberKey]*Member, len(members))
	for i := range members {
		byKey[members[i].Key()] = &members[i]
	}
	out := make([]*Member, len(keys))
	for i, k := range keys {
		out[i] = byKey[k]
	}
	return out, nil
}
