package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetGroups reads many groups by id (access pattern 1) with as few
// BatchGetItem calls as possible. The result is aligned with ids; a missing
// group is nil.
func (s *Store) GetGroups(ctx context.Context, ids []string) ([]*Group, error) {
	keys := make([]map[string]types.AttributeValue, len(ids))
	for i, id := range ids {
		keys[i] = tableKey(groupPK(id), skMetadata)
	}
	items, err := s.batchGet(ctx, dedupeKeys(keys))
	if err != nil {
		return nil, err
	}
	groups, err := decodeAll(items, liveGroup)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Group, len(groups))
	for _, g := range groups {
		if g != nil {
			byID[g.ID] = g
		}
	}
	out := make([]*Group, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// CurrentGroup reads a group strongly consistent, or nil (a deleted group
// too): what a write to the group itself starts from.
func (s *Store) CurrentGroup(ctx context.Context, id string) (*Group, error) {
	g, err := s.DeletedGroup(ctx, id)
	if err != nil || g == nil || g.DeletedAt != nil {
		return nil, err
	}
	return g, nil
}

// DeletedGroup reads a group strongly consistent, deleted or not, or nil
// when there is none (or it is being purged): what restoring a deleted
// group starts from.
func (s *Store) DeletedGroup(ctx context.Context, id string) (*Group, error) {
	item, ok, err := s.getItem(ctx, groupPK(id), skMetadata, true)
	if err != nil || !ok {
		return nil, err
	}
	recs, err := decodeAll([]map[string]types.AttributeValue{item}, func(r *groupRecord) (*groupRecord, error) { return r, nil })
	if err != nil || recs[0].Purging {
		return nil, err
	}
	g, err := recs[0].group()
	return &g, err
}
