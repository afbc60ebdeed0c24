package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// memberEvent is the activity event of a change to a membership, made by
// the member themself.
func memberEvent(t EventType, groupID, userID, at string, changes []Change) Event {
	when, _ := parseTime(at) // written by formatTime
	return Event{
		GroupID: groupID, Type: t, ActorID: userID, At: when,
		Subject: Subject{Kind: SubjectMember, ID: userID}, Changes: changes,
	}
}

// memberAbsent: the user was never a member, or has left. memberAbsentByID
// adds, for a join by the group's id alone: and has not erased their data.
var (
	memberAbsent     = condItemAbsent + " OR " + attrExists(attrLeftAt)
	memberAbsentByID = "(" + memberAbsent + ") AND " + attrNotExists(attrErasedAt)
)

// attrJoinByID is the group attribute that lets anyone who knows the group's
// id join it. Groups created before it existed have none.
const attrJoinByID = "joinByIdAllowed"

// FieldJoinByIDAllowed is the group field its events record.
const FieldJoinByIDAllowed = "joinByIdAllowed"

// inviteUsable: the invite exists (not purged), is not revoked, has not
// expired and has a use left.
var inviteUsable = condItemExists + " AND " + inviteLive

// ErrInviteInvalid is what joining with an invite that is unknown, expired,
// revoked or used up returns, alike: it says nothing of the group. It is an
// ErrNotFound.
var ErrInviteInvalid = fmt.Errorf("%w: the invite is unknown, expired, revoked or used up", ErrNotFound)

// JoinGroup makes the user a member of the group, or a member again after
// leaving, whatever the group's policy on joining by id: the primitive that
// JoinGroupByID and JoinWithInvite guard. Joining again is not an error: it
// returns the existing membership with joined false. The membership, the
// group's memberCount, its ledger and the MEMBER_JOINED event are written in
// one transaction, so the count stays exact under concurrent joins.
func (s *Store) JoinGroup(ctx context.Context, groupID string, nm NewMember) (m Member, joined bool, err error) {
	return s.join(ctx, groupID, nm, condItemExists, nil)
}

// JoinGroupByID is JoinGroup for a user who knows only the group's id: it is
// refused with ErrNotFound, exactly as for a group that does not exist,
// unless the group allows joining by id (groups created before that setting
// existed allow it unless Options.LegacyGroupsClosed).
func (s *Store) JoinGroupByID(ctx context.Context, groupID string, nm NewMember) (m Member, joined bool, err error) {
	open := attrJoinByID + " = :open"
	if !s.legacyGroupsClosed {
		open = "(" + open + " OR " + attrNotExists(attrJoinByID) + ")"
	}
	m, joined, err = s.join(ctx, groupID, nm, condItemExists+" AND "+open, nil)
	if err == nil && !joined && m.ErasedAt != nil && !m.Active() {
		// A user who erased their data comes back only with a new invite:
		// their erased membership stays a former one (docs/privacy.md).
		return Member{}, false, notFoundf("group %s", groupID)
	}
	return m, joined, err
}

// JoinWithInvite joins the group of the invite whose secret has the given
// hash, using one of its uses in the same transaction, so that an invite
// with one use left admits exactly one of many racing joins. An unknown,
// expired, revoked or used-up invite gives ErrInviteInvalid. A user who is
// already a member gets their membership back with joined false, and no use
// is spent.
func (s *Store) JoinWithInvite(ctx context.Context, secretHash string, nm NewMember) (m Member, inv Invite, joined bool, err error) {
	item, err := s.lookupGSI2(ctx, inviteGSI2PK(secretHash))
	if err != nil || item == nil {
		return Member{}, Invite{}, false, orInvalidInvite(err)
	}
	invites, err := decodeAll([]map[string]types.AttributeValue{item}, (*inviteRecord).invite)
	if err != nil {
		return Member{}, Invite{}, false, err
	}
	inv = invites[0]
	if !inv.Live(s.now()) {
		return Member{}, Invite{}, false, ErrInviteInvalid
	}
	if current, err := s.getMember(ctx, inv.GroupID, nm.UserID, true); err == nil && current.Active() {
		return current, inv, false, nil
	}
	m, joined, err = s.join(ctx, inv.GroupID, nm, condItemExists, &inv)
	if err != nil {
		return Member{}, Invite{}, false, orInvalidInvite(err)
	}
	if joined {
		inv.Uses++
	}
	return m, inv, joined, nil
}

// orInvalidInvite turns any "not found" of a join with an invite into
// ErrInviteInvalid, so that no answer tells a missing group from a spent invite.
func orInvalidInvite(err error) error {
	if err == nil || isNotFound(err) {
		return ErrInviteInvalid
	}
	return err
}

// join writes the membership with groupCond on the group's METADATA item and,
// with an invite, one of its uses.
func (s *Store) join(ctx context.Context, groupID string, nm NewMember, groupCond string, inv *Invite) (Member, bool, error) {
	rec, err := newMemberRecord(groupID, nm, s.stamp())
	if err != nil {
		return Member{}, false, err
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return Member{}, false, fmt.Errorf("encode member: %w", err)
	}
	pk := groupPK(groupID)
	absent := memberAbsent
	if inv == nil && groupCond != condItemExists {
		absent = memberAbsentByID
	}
	groupValues := map[string]types.AttributeValue{":one": number(1)}
	if groupCond != condItemExists {
		groupValues[":open"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	items := []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: &s.table, Item: item,
			ConditionExpression: aws.String(absent),
		}},
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, skMetadata),
			UpdateExpression:          aws.String("ADD " + attrMemberCount + " :one"),
			ConditionExpression:       aws.String(groupCond),
			ExpressionAttributeValues: groupValues,
		}},
	}
	var changes []Change
	if inv != nil {
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, inv.key()),
			UpdateExpression:    aws.String("ADD " + attrUses + " :one"),
			ConditionExpression: aws.String(inviteUsable),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":one": number(1), ":now": str(formatTime(s.now())),
			},
		}})
		changes = []Change{{Field: FieldInvite, After: &inv.ID}}
	}
	ev := memberEvent(EventMemberJoined, groupID, nm.UserID, rec.JoinedAt, changes)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.addMember(nm.UserID)
		return items, nil
	})
	switch {
	case err == nil:
		m, err := rec.member()
		return m, true, err
	case condFailedAt(err, 1):
		m, err := s.getMember(ctx, groupID, nm.UserID, true)
		return m, false, err
	case condFailedAt(err, 0) || condFailedAt(err, 2) || condFailedAt(err, 3):
		return Member{}, false, notFoundf("group %s", groupID)
	default:
		return Member{}, false, fmt.Errorf("join group: %w", err)
	}
}

// FieldInvite is the change a join with an invite records: the invite's id.
const FieldInvite = "invite"
