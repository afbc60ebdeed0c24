package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GroupItemKey names an item of a group's partition that is read by key:
// the group itself, a membership (UserID set) or the ledger (Ledger set).
// Keys of all three kinds, of any groups, are read together.
type GroupItemKey struct {
	GroupID string
	UserID  string
	Ledger  bool
}

// GroupKey names a group.
func GroupKey(groupID string) GroupItemKey { return GroupItemKey{GroupID: groupID} }

// LedgerKey names a group's ledger.
func LedgerKey(groupID string) GroupItemKey { return GroupItemKey{GroupID: groupID, Ledger: true} }

// Item names the membership.
func (k MemberKey) Item() GroupItemKey { return GroupItemKey{GroupID: k.GroupID, UserID: k.UserID} }

// tableKey is the item's key in the table.
func (k GroupItemKey) tableKey() map[string]types.AttributeValue {
	switch {
	case k.Ledger:
		return tableKey(groupPK(k.GroupID), skLedger)
	case k.UserID != "":
		return tableKey(groupPK(k.GroupID), memberSK(k.UserID))
	}
	return tableKey(groupPK(k.GroupID), skMetadata)
}

// GroupItem is what a GroupItemKey names: one of its fields is set, or none
// when the item does not exist.
type GroupItem struct {
	Group  *Group
	Member *Member
	Ledger *Ledger
}

// GetGroupItems reads groups, memberships and ledgers by key with as few
// BatchGetItem calls as possible, aligned with keys.
func (s *Store) GetGroupItems(ctx context.Context, keys []GroupItemKey) ([]GroupItem, error) {
	return s.getGroupItems(ctx, keys, false)
}

// getGroupItems is GetGroupItems with the choice of strongly consistent reads.
func (s *Store) getGroupItems(ctx context.Context, keys []GroupItemKey, consistent bool) ([]GroupItem, error) {
	avKeys := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		avKeys[i] = k.tableKey()
	}
	items, err := s.batchRead(ctx, dedupeKeys(avKeys), consistent)
	if err != nil {
		return nil, err
	}
	return decodeGroupItems(avKeys, items)
}

// decodeGroupItems is what items read hold for each of keys, aligned with them.
func decodeGroupItems(avKeys, items []map[string]types.AttributeValue) ([]GroupItem, error) {
	var err error
	byKey := make(map[[2]string]GroupItem, len(items))
	for _, item := range items {
		var got GroupItem
		switch sk := keyAttr(item, attrSK); {
		case sk == skMetadata:
			gs, err := decodeAll([]map[string]types.AttributeValue{item}, liveGroup)
			if err != nil {
				return nil, err
			}
			got.Group = gs[0] // nil for a deleted group
		case sk == skLedger:
			if got.Ledger, err = decodeLedger(item); err != nil {
				return nil, err
			}
		default:
			ms, err := decodeAll([]map[string]types.AttributeValue{item}, (*memberRecord).member)
			if err != nil {
				return nil, err
			}
			got.Member = &ms[0]
		}
		byKey[[2]string{keyAttr(item, attrPK), keyAttr(item, attrSK)}] = got
	}
	out := make([]GroupItem, len(avKeys))
	for i, k := range avKeys {
		out[i] = byKey[[2]string{keyAttr(k, attrPK), keyAttr(k, attrSK)}]
	}
	return out, nil
}
