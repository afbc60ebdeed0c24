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
	groups, err := decodeAll(items, (*groupRecord).group)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Group, len(groups))
	for i := range groups {
		byID[groups[i].ID] = &groups[i]
	}
	out := make([]*Group, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// CurrentGroup reads a group strongly consistent, or nil: what a write to
// the group itself starts from.
func (s *Store) CurrentGroup(ctx context.Context, id string) (*Group, error) {
	item, ok, err := s.getItem(ctx, groupPK(id), skMetadata, true)
	if err != nil || !ok {
		return nil, err
	}
	gs, err := decodeAll([]map[string]types.AttributeValue{item}, (*groupRecord).group)
	if err != nil {
		return nil, err
	}
	return &gs[0], nil
}
