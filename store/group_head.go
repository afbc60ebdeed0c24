package store

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GroupHead is a group with its balances as members see them: its METADATA,
// ledger and books, which sort together (keys.go). Both are nil when the
// group does not exist.
type GroupHead struct {
	Group    *Group
	Balances *GroupBalances
}

// GetGroupHead reads a group and its balances with one Query, whatever the
// number of its expenses (a group the migration has not moved the books of
// yet costs one BatchGetItem more).
func (s *Store) GetGroupHead(ctx context.Context, groupID string) (GroupHead, error) {
	from, to := groupHeadRange()
	items, err := s.collect(ctx, listQuery{
		list:    "head:" + groupID,
		keyCond: groupHeadCond,
		values:  map[string]types.AttributeValue{":pk": str(groupPK(groupID)), ":from": str(from), ":to": str(to)},
		forward: true,
	}, nil, math.MaxInt32)
	if err != nil {
		return GroupHead{}, err
	}
	var head GroupHead
	var l *Ledger
	var books []map[string]types.AttributeValue
	for _, item := range items {
		switch sk := keyAttr(item, attrSK); {
		case sk == skMetadata:
			gs, err := decodeAll([]map[string]types.AttributeValue{item}, liveGroup)
			if err != nil {
				return GroupHead{}, err
			}
			head.Group = gs[0] // nil for a deleted group: no head
		case sk == skLedger:
			if l, err = decodeLedger(item); err != nil {
				return GroupHead{}, err
			}
		case strings.HasPrefix(sk, prefixBook):
			books = append(books, item)
		default:
			return GroupHead{}, fmt.Errorf("group %s: unexpected item %s beside the ledger", groupID, sk)
		}
	}
	if head.Group == nil || l == nil {
		return GroupHead{}, nil
	}
	if l.oldBooks { // not migrated: some books may still be in the old place too
		gbs, err := s.readBooks(ctx, []*Ledger{l}, false)
		if err != nil {
			return GroupHead{}, err
		}
		head.Balances = gbs[0]
	} else if head.Balances, err = l.balances(books, true); err != nil {
		return GroupHead{}, err
	}
	if err := head.Balances.mergeClaims(); err != nil {
		return GroupHead{}, err
	}
	return head, nil
}
