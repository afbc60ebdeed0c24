package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// EventAvatarChanged: a member set or removed the picture of the group (its
// subject) or of a placeholder (the member).
const EventAvatarChanged EventType = "avatar_changed"

// FieldAvatar is the field an AVATAR_CHANGED event records: the picture's
// storage path before and after.
const FieldAvatar = "avatar"

// SetAvatar sets (path != "") or removes the stored picture of the group
// (memberID "") or of one of its unclaimed placeholders, on behalf of actor,
// with its AVATAR_CHANGED event, in one transaction on condition that the
// placeholder is still unclaimed (ErrNotFound otherwise), that actor is a
// member, and, with uploadID, that the upload it came from is still pending
// (ErrUploadGone; its record goes). was is the path it had, as read.
func (s *Store) SetAvatar(ctx context.Context, groupID, memberID, was, path, uploadID, actor string) error {
	update := &types.Update{TableName: &s.table, ExpressionAttributeNames: map[string]string{"#avatar": attrAvatarURL}}
	subject := Subject{Kind: SubjectGroup, ID: groupID}
	if memberID == "" {
		update.Key, update.ConditionExpression = tableKey(groupPK(groupID), skMetadata), aws.String(condItemExists)
	} else {
		update.Key, update.ConditionExpression = tableKey(groupPK(groupID), memberSK(memberID)), aws.String(placeholderUnclaimed)
		subject = Subject{Kind: SubjectMember, ID: memberID}
	}
	if path == "" {
		update.UpdateExpression = aws.String("REMOVE #avatar")
	} else {
		update.UpdateExpression = aws.String("SET #avatar = :path")
		update.ExpressionAttributeValues = map[string]types.AttributeValue{":path": str(path)}
	}
	items := []types.TransactWriteItem{{Update: update}, s.memberCheck(groupID, actor, memberCurrent)}
	if uploadID != "" {
		items = append(items, s.uploadConsumed(groupID, uploadID))
	}
	now := s.stamp()
	ev := Event{
		GroupID: groupID, Type: EventAvatarChanged, ActorID: actor, At: now, Subject: subject,
		Changes: []Change{{Field: FieldAvatar, Before: text(was), After: text(path)}},
	}
	err := s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) { return items, nil })
	switch {
	case condFailedAt(err, 3):
		return ErrUploadGone
	case condFailedAt(err, 1):
		return notFoundf("member %s", memberID)
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return notFoundf("group %s", groupID)
	case err != nil:
		return fmt.Errorf("set avatar: %w", err)
	}
	return nil
}
