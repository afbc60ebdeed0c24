package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetGroup reads a group by id (access pattern 1).
func (s *Store) GetGroup(ctx context.Context, groupID string) (Group, error) {
	item, ok, err := s.getItem(ctx, groupPK(groupID), skMetadata, false)
	if err != nil {
		return Group{}, err
	}
	if !ok {
		return Group{}, notFoundf("group %s", groupID)
	}
	gs, err := decodeAll([]map[string]types.AttributeValue{item}, (*groupRecord).group)
	if err != nil {
		return Group{}, err
	}
	return gs[0], nil
}

// GetGroups reads many groups by id with as few BatchGetItem calls as
// possible. The result is aligned with ids; a missing group is nil.
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

// dedupeKeys drops repeated table keys: BatchGetItem refuses duplicates.
func dedupeKeys(keys []map[string]types.AttributeValue) []map[string]types.AttributeValue {
	seen := make(map[[2]string]bool, len(keys))
	out := keys[:0:0]
	for _, k := range keys {
		id := [2]string{k[attrPK].(*types.AttributeValueMemberS).Value, k[attrSK].(*types.AttributeValueMemberS).Value}
		if !seen[id] {
			seen[id] = true
			out = append(out, k)
		}
	}
	return out
}
