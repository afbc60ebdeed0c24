package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FieldRole is the member field the events of role changes record.
const FieldRole = "role"

// memberRoles is a group as role changes read it: the group, strongly
// consistent, and the role of each of its active members. (Roster, the
// group screen's read of every membership, is eventually consistent.)
type memberRoles struct {
	group   Group
	members map[string]*Member
}

// readRoles reads the group and its active members, strongly consistent.
func (s *Store) readRoles(ctx context.Context, groupID string) (*memberRoles, error) {
	g, err := s.CurrentGroup(ctx, groupID)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, notFoundf("group %s", groupID)
	}
	r := &memberRoles{group: *g, members: map[string]*Member{}}
	members := listQuery{
		list: "members:" + groupID, keyCond: tablePrefixCond, values: prefixValues(groupPK(groupID), prefixUser),
		filter: memberNotLeft, forward: true, keys: tableKeys, consistent: true,
	}
	err = eachPage(ctx, func(a PageArgs) (Page[Member], error) {
		return listPage(ctx, s, members, a, (*memberRecord).member)
	}, func(m *Member) { r.members[m.UserID] = m })
	return r, err
}

// role is the user's role now; "" if they are not an active member.
func (r *memberRoles) role(userID string) Role {
	m := r.members[userID]
	if m == nil {
		return ""
	}
	return r.group.RoleOf(m)
}

// longestStanding is the member (not a placeholder, nor except) who joined
// first, the lower id first among equals, among those of role (any role
// for ""); nil if there is none.
func (r *memberRoles) longestStanding(except string, role Role) *Member {
	var first *Member
	for _, m := range r.members {
		if m.UserID != except && !m.Placeholder && (role == "" || r.role(m.UserID) == role) && (first == nil || m.JoinedAt.Before(first.JoinedAt) ||
			m.JoinedAt.Equal(first.JoinedAt) && m.UserID < first.UserID) {
			first = m
		}
	}
	return first
}

// owners are the active owners' ids.
func (r *memberRoles) owners() []string {
	var out []string
	for id := range r.members {
		if r.role(id) == RoleOwner {
			out = append(out, id)
		}
	}
	return out
}

// roleWrite builds the transaction items of role changes (user → new role)
// by actor: each changed membership is updated on condition that it is
// active with the role read; the actor's, if not changed, is checked the
// same way; and a group written before roles writes them down in the same
// transaction (rolesKept, and its owners' roles).
func (s *Store) roleWrite(r *memberRoles, actor string, changes map[string]Role) []types.TransactWriteItem {
	pk := groupPK(r.group.ID)
	if !r.group.RolesKept {
		for _, id := range r.owners() {
			if _, ok := changes[id]; !ok {
				changes[id] = RoleOwner // written down as read
			}
		}
	}
	var items []types.TransactWriteItem
	for id, to := range changes {
		cond, values := s.roleAsRead(r, id)
		update := "REMOVE " + refRole
		if stored := storedRole(to); stored != "" {
			update = "SET " + refRole + " = :to"
			if values == nil {
				values = map[string]types.AttributeValue{}
			}
			values[":to"] = str(stored)
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, memberSK(id)),
			UpdateExpression: aws.String(update), ConditionExpression: aws.String(cond),
			ExpressionAttributeValues: values, ExpressionAttributeNames: roleNames(),
		}})
	}
	if _, changed := changes[actor]; !changed && actor != "" {
		cond, values := s.roleAsRead(r, actor)
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: tableKey(pk, memberSK(actor)),
			ConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
			ExpressionAttributeNames: roleNames(),
		}})
	}
	if !r.group.RolesKept {
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, skMetadata),
			UpdateExpression:          aws.String("SET " + attrRolesKept + " = :yes"),
			ConditionExpression:       aws.String(condItemExists + " AND " + attrNotExists(attrRolesKept)),
			ExpressionAttributeValues: map[string]types.AttributeValue{":yes": &types.AttributeValueMemberBOOL{Value: true}},
		}})
	}
	return items
}

// refRole names the role in expressions: "role" is a reserved word.
const refRole = "#role"

func roleNames() map[string]string { return map[string]string{refRole: attrRole} }

// roleAsRead is the condition that a membership is active with the role it
// was read with.
func (s *Store) roleAsRead(r *memberRoles, userID string) (string, map[string]types.AttributeValue) {
	cond := condItemExists + " AND " + memberNotLeft
	values := map[string]types.AttributeValue{}
	if stored := storedRole(r.role(userID)); stored != "" && r.group.RolesKept {
		cond += " AND " + refRole + " = :was"
		values[":was"] = str(stored)
	} else {
		cond += " AND " + attrNotExists(refRole)
	}
	if len(values) == 0 {
		values = nil
	}
	return cond, values
}

// writeRoles writes role changes with their event; a failed condition means
// someone changed a role, or left, meanwhile. Archived groups refuse them,
// except anyState's: the hand-over of an erasure, which reaches every group.
func (s *Store) writeRoles(ctx context.Context, r *memberRoles, actor string, changes map[string]Role, ev *Event, anyState bool) error {
	items := s.roleWrite(r, actor, changes)
	err := s.writeWithEvent(ctx, ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		if anyState {
			l.writesArchived()
		}
		l.requireMembers([]string{actor})
		return items, nil
	})
	if IsCondCheckFailed(err) && !condFailedAt(err, 0) {
		return conflictf("a role or a membership changed meanwhile; read the members again and retry")
	}
	if condFailedAt(err, 0) {
		return notFoundf("member %s of group %s", actor, r.group.ID)
	}
	if err != nil {
		return fmt.Errorf("change roles: %w", err)
	}
	return nil
}

// roleEvent is the event of a change of userID's role by actor.
func (s *Store) roleEvent(t EventType, groupID, actor, userID string, from, to Role) Event {
	return Event{
		GroupID: groupID, Type: t, ActorID: actor, At: s.stamp(),
		Subject: Subject{Kind: SubjectMember, ID: userID},
		Changes: []Change{{Field: FieldRole, Before: text(RoleName(from)), After: text(RoleName(to))}},
	}
}

// RoleName is a role as the API and the activity log write it: OWNER,
// ADMIN or MEMBER.
func RoleName(r Role) string { return strings.ToUpper(string(r)) }

// SetMemberRole makes userID's role in the group role, by actor: an admin
// (or owner) gives and takes ADMIN and MEMBER; only an owner makes an owner
// or changes an owner's role; the last owner cannot step down (they hand the
// group over with TransferOwnership). A placeholder has no role to change.
// Refusals are ErrForbidden (the actor may not), ErrConflict (the last owner)
// or ErrNotFound (no such active member).
func (s *Store) SetMemberRole(ctx context.Context, groupID, actor, userID string, role Role) (Member, error) {
	r, err := s.readRoles(ctx, groupID)
	if err != nil {
		return Member{}, err
	}
	by, was := r.role(actor), r.role(userID)
	target := r.members[userID]
	switch {
	case by == "":
		return Member{}, notFoundf("member %s of group %s", actor, groupID)
	case target == nil:
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	case target.Placeholder:
		return Member{}, fmt.Errorf("%w: a placeholder has no role; it takes one when someone claims it", ErrInvalidInput)
	case !by.AtLeast(RoleAdmin):
		return Member{}, forbiddenf("only an admin or the owner may change roles; you are a member")
	case (role == RoleOwner || was == RoleOwner) && by != RoleOwner:
		return Member{}, forbiddenf("only an owner may make an owner or change an owner's role")
	case was == role:
		return *target, nil
	case was == RoleOwner && len(r.owners()) == 1:
		return Member{}, conflictf("the group's last owner cannot step down; transfer ownership first")
	}
	ev := s.roleEvent(EventMemberRoleChanged, groupID, actor, userID, was, role)
	if err := s.writeRoles(ctx, r, actor, map[string]Role{userID: role}, &ev, false); err != nil {
		return Member{}, err
	}
	m := *target
	m.Role = role
	return m, nil
}

// TransferOwnership makes userID the group's owner and the owner actor an
// admin, in one transaction. Only an owner may.
func (s *Store) TransferOwnership(ctx context.Context, groupID, actor, userID string) (Member, error) {
	r, err := s.readRoles(ctx, groupID)
	if err != nil {
		return Member{}, err
	}
	target := r.members[userID]
	switch {
	case r.role(actor) == "":
		return Member{}, notFoundf("member %s of group %s", actor, groupID)
	case r.role(actor) != RoleOwner:
		return Member{}, forbiddenf("only the group's owner may hand it over")
	case target == nil:
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	case target.Placeholder:
		return Member{}, fmt.Errorf("%w: a placeholder cannot own a group; invite them and let them claim it first", ErrInvalidInput)
	case userID == actor:
		return *target, nil
	}
	ev := s.roleEvent(EventOwnershipTransferred, groupID, actor, userID, r.role(userID), RoleOwner)
	if err := s.writeRoles(ctx, r, actor, map[string]Role{userID: RoleOwner, actor: RoleAdmin}, &ev, false); err != nil {
		return Member{}, err
	}
	m := *target
	m.Role = RoleOwner
	return m, nil
}

// KeepRoles writes down the roles of a group written before roles, as
// RoleOf reads them (its creator the owner); if its creator has left, the
// longest-standing member becomes its owner, so that every group with
// members has one. It reports whether it wrote anything.
func (s *Store) KeepRoles(ctx context.Context, groupID string) (bool, error) {
	r, err := s.readRoles(ctx, groupID)
	if err != nil || r.group.RolesKept {
		return false, err
	}
	changes := map[string]Role{}
	if len(r.owners()) == 0 {
		if first := r.longestStanding("", ""); first != nil {
			changes[first.UserID] = RoleOwner
		}
	}
	items := s.roleWrite(r, "", changes)
	err = s.transactWrite(ctx, items)
	switch {
	case IsCondCheckFailed(err):
		return false, nil // written meanwhile, or a member left: the next run sees it
	case err != nil:
		return false, fmt.Errorf("keep roles of group %s: %w", groupID, err)
	}
	return true, nil
}

// PassOwnership makes sure the group keeps an owner once userID goes
// without handing it over (their erasure): if they are its only owner, the
// longest-standing admin, else member (not a placeholder), becomes its owner, with
// OWNERSHIP_TRANSFERRED by userID. It reports the new owner, "" when none
// was needed or nobody is left to take it.
func (s *Store) PassOwnership(ctx context.Context, groupID, userID string) (string, error) {
	r, err := s.readRoles(ctx, groupID)
	if err != nil || r.role(userID) != RoleOwner || len(r.owners()) > 1 {
		return "", err
	}
	next := r.longestStanding(userID, RoleAdmin)
	if next == nil {
		next = r.longestStanding(userID, "")
	}
	if next == nil {
		return "", nil
	}
	ev := s.roleEvent(EventOwnershipTransferred, groupID, userID, next.UserID, r.role(next.UserID), RoleOwner)
	if err := s.writeRoles(ctx, r, userID, map[string]Role{next.UserID: RoleOwner}, &ev, true); err != nil {
		return "", err
	}
	return next.UserID, nil
}

// OtherOwner is an active owner of the group other than userID, "" if there
// is none: the one an owner's leaving is conditioned on (LeaveGroup).
func (s *Store) OtherOwner(ctx context.Context, groupID, userID string) (string, error) {
	r, err := s.readRoles(ctx, groupID)
	if err != nil {
		return "", err
	}
	for _, id := range r.owners() {
		if id != userID {
			return id, nil
		}
	}
	return "", nil
}
