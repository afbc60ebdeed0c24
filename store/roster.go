package store

import (
	"context"
	"slices"
	"strings"
)

// RosterLimit is the most memberships a roster holds. A group with more is
// read as before: its members page by page, and one by one where asked for.
const RosterLimit = 200

// Roster is every membership of a group, current and former, read with one
// Query: what a group's screen needs to show its members, authorize its
// viewer and name every payer, beneficiary and debtor, without reading any
// membership again.
type Roster struct {
	GroupID string
	Members []Member // in user-id order, as the members list sorts them
	// Complete: the group has at most RosterLimit memberships and Members
	// holds them all, so a user missing from it is no member.
	Complete bool
}

// GetRoster reads the group's memberships, up to RosterLimit of them.
func (s *Store) GetRoster(ctx context.Context, groupID string) (*Roster, error) {
	items, err := s.collect(ctx, listQuery{
		list:    "roster:" + groupID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), prefixUser),
		forward: true,
	}, nil, RosterLimit+1)
	if err != nil {
		return nil, err
	}
	r := &Roster{GroupID: groupID, Complete: len(items) <= RosterLimit}
	if r.Members, err = decodeAll(items[:min(len(items), RosterLimit)], (*memberRecord).member); err != nil {
		return nil, err
	}
	return r, nil
}

// Member is the user's membership, current or former, and whether the
// roster can tell: false when it is incomplete and does not hold the user.
func (r *Roster) Member(userID string) (m *Member, known bool) {
	// Sort keys share their prefix, so user ids compare as their keys do.
	i, found := slices.BinarySearchFunc(r.Members, userID, func(m Member, id string) int {
		return strings.Compare(m.UserID, id)
	})
	if found {
		return &r.Members[i], true
	}
	return nil, r.Complete
}

// MembersPage is the page of the group's current members that ListMembers
// would read, with the same cursors, taken from a complete roster.
func (s *Store) MembersPage(r *Roster, args PageArgs) (Page[Member], error) {
	return memoryList[Member]{
		list: "members:" + r.GroupID, attrs: tableKeys, order: attrSK,
		key: func(m *Member) map[string]string {
			return map[string]string{attrPK: groupPK(m.GroupID), attrSK: memberSK(m.UserID)}
		},
		include: (*Member).Active,
	}.page(s, r.Members, args)
}
