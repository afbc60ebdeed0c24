package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attributes of the group and chat items that the chat's writes name.
const (
	attrChatID          = "chatId"
	attrChatLanguage    = "chatLanguage"
	attrChatConnectedBy = "chatConnectedBy"
	attrWeeklyReminder  = "weeklyReminder"
	attrChatGroupID     = "groupId"
)

// FieldChatID is the group field the chat events record.
const FieldChatID = "chatId"

// FieldWeeklyReminder is the group field GROUP_UPDATED records when the
// weekly reminder is turned on or off.
const FieldWeeklyReminder = "weeklyReminder"

// FieldReason is the change a CHAT_DISCONNECTED event by Telegram carries.
const FieldReason = "reason"

// ReasonBotRemoved is why Telegram disconnected a chat: the bot left it.
const ReasonBotRemoved = "bot_removed"

// chatRecord is the CHAT#<chatId> / CHAT item: which group has the chat.
type chatRecord struct {
	itemKey
	ChatID  string `dynamodbav:"chatId"`
	GroupID string `dynamodbav:"groupId"`
}

// chatFree: nobody has the chat, or the group itself does.
var chatFree = condItemAbsent + " OR " + attrChatGroupID + " = :g"

// ConnectTelegramChat ties groupID to chatID, one chat per group and one
// group per chat: the CHAT#<chatId> item is written on condition that no
// other group has it, in the same transaction as the group's chatId and the
// CHAT_CONNECTED event by actorID. A chat another group has, or a group that
// has another chat, is an ErrConflict; connecting the chat the group
// already has changes nothing. language is the connecting member's
// language_code, that of the group's messages.
func (s *Store) ConnectTelegramChat(ctx context.Context, groupID, chatID, actorID, language string) (Group, error) {
	g, err := s.currentGroupOrNotFound(ctx, groupID)
	switch {
	case err != nil:
		return Group{}, err
	case g.ChatID == chatID:
		return g, nil
	case g.ChatID != "":
		return Group{}, conflictf("the group is connected to another chat; disconnect it first")
	}
	update := &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
		UpdateExpression: aws.String("SET " + attrChatID + " = :c, " + attrChatConnectedBy + " = :by" +
			", " + attrChatLanguage + " = :lang"),
		ConditionExpression:       aws.String(condItemExists + " AND " + attrNotExists(attrChatID)),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": str(chatID), ":by": str(actorID), ":lang": str(language)},
	}
	put, err := s.putChat(chatID, groupID)
	if err != nil {
		return Group{}, err
	}
	ev := Event{
		GroupID: groupID, Type: EventChatConnected, ActorID: actorID, At: s.stamp(),
		Subject: Subject{Kind: SubjectGroup, ID: groupID},
		Changes: []Change{{Field: FieldChatID, After: text(chatID)}},
	}
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{{Update: update}, put}, nil
	})
	switch {
	case condFailedAt(err, 2):
		return Group{}, conflictf("the chat is connected to another group")
	case condFailedAt(err, 1):
		return Group{}, conflictf("the group's chat was changed meanwhile; reload and try again")
	case condFailedAt(err, 0):
		return Group{}, notFoundf("group %s", groupID)
	case err != nil:
		return Group{}, fmt.Errorf("connect chat: %w", err)
	}
	g.ChatID, g.ChatLanguage, g.ChatConnectedBy = chatID, language, actorID
	return g, nil
}

// putChat writes the chat's item for groupID, unless another group has it.
func (s *Store) putChat(chatID, groupID string) (types.TransactWriteItem, error) {
	put, err := s.putNew(chatRecord{itemKey: itemKey{PK: chatPK(chatID), SK: skChat}, ChatID: chatID, GroupID: groupID}, "chat")
	if err != nil {
		return put, err
	}
	put.Put.ConditionExpression = aws.String(chatFree)
	put.Put.ExpressionAttributeValues = map[string]types.AttributeValue{":g": str(groupID)}
	return put, nil
}

// deleteChat removes the chat's item if groupID has it.
func (s *Store) deleteChat(chatID, groupID string) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: &s.table, Key: tableKey(chatPK(chatID), skChat),
		ConditionExpression:       aws.String(chatFree),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": str(groupID)},
	}}
}

// DisconnectTelegramChat unties the group's chat, with the
// CHAT_DISCONNECTED event, and returns the group. It changes nothing when
// the group has no chat, or when chatID is not "" and the group's chat is
// another (an update about a chat it no longer has). actorID "" means
// Telegram did it (the bot was removed): the event names the member who
// connected the chat, with the change reason bot_removed.
func (s *Store) DisconnectTelegramChat(ctx context.Context, groupID, chatID, actorID string) (Group, error) {
	g, err := s.currentGroupOrNotFound(ctx, groupID)
	switch {
	case err != nil:
		return Group{}, err
	case g.ChatID == "" || (chatID != "" && g.ChatID != chatID):
		return g, nil
	}
	update := &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
		UpdateExpression:          aws.String("REMOVE " + attrChatID + ", " + attrChatLanguage + ", " + attrChatConnectedBy),
		ConditionExpression:       aws.String(condItemExists + " AND " + attrChatID + " = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": str(g.ChatID)},
	}
	changes := []Change{{Field: FieldChatID, Before: text(g.ChatID)}}
	telegram := actorID == ""
	if telegram {
		actorID = g.ChatConnectedBy
		changes = append(changes, Change{Field: FieldReason, After: text(ReasonBotRemoved)})
	}
	ev := Event{
		GroupID: groupID, Type: EventChatDisconnected, ActorID: actorID, At: s.stamp(),
		Subject: Subject{Kind: SubjectGroup, ID: groupID}, Changes: changes,
	}
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		if telegram {
			l.writesArchived() // a fact of Telegram's, recorded even in an archived group
		}
		return []types.TransactWriteItem{{Update: update}, s.deleteChat(g.ChatID, groupID)}, nil
	})
	switch {
	case condFailedAt(err, 1), condFailedAt(err, 2):
		// Someone else disconnected (or moved) it first: what they left stands.
		return s.currentGroupOrNotFound(ctx, groupID)
	case condFailedAt(err, 0):
		return Group{}, notFoundf("group %s", groupID)
	case err != nil:
		return Group{}, fmt.Errorf("disconnect chat: %w", err)
	}
	g.ChatID, g.ChatLanguage, g.ChatConnectedBy = "", "", ""
	return g, nil
}

// currentGroupOrNotFound reads the group as it is now.
func (s *Store) currentGroupOrNotFound(ctx context.Context, groupID string) (Group, error) {
	g, err := s.CurrentGroup(ctx, groupID)
	if err == nil && g == nil {
		err = notFoundf("group %s", groupID)
	}
	if err != nil {
		return Group{}, err
	}
	return *g, nil
}

// MoveTelegramChat moves a connection from a basic group's chat id to the
// id of the supergroup it became, in one transaction (the old chat's item,
// the new one's, the group's chatId), and returns the group's id ("" when
// no group has fromChatID: nothing to move). A supergroup another group
// already has is an ErrConflict.
func (s *Store) MoveTelegramChat(ctx context.Context, fromChatID, toChatID string) (string, error) {
	groupID, err := s.GroupOfChat(ctx, fromChatID)
	if err != nil || groupID == "" {
		return "", err
	}
	put, err := s.putChat(toChatID, groupID)
	if err != nil {
		return "", err
	}
	err = s.transactWrite(ctx, []types.TransactWriteItem{
		s.deleteChat(fromChatID, groupID),
		put,
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
			UpdateExpression:          aws.String("SET " + attrChatID + " = :to"),
			ConditionExpression:       aws.String(condItemExists + " AND " + attrChatID + " = :from"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":to": str(toChatID), ":from": str(fromChatID)},
		}},
	})
	switch {
	case condFailedAt(err, 1):
		return "", conflictf("chat %s is connected to another group", toChatID)
	case condFailedAt(err, 0), condFailedAt(err, 2):
		// Moved or disconnected meanwhile (Telegram sends the migration both
		// in an update and in a refused send): where it is now stands.
		return s.GroupOfChat(ctx, toChatID)
	case err != nil:
		return "", fmt.Errorf("move chat: %w", err)
	}
	return groupID, nil
}

// GroupOfChat is the id of the group connected to chatID, "" when none
// (one strongly consistent GetItem).
func (s *Store) GroupOfChat(ctx context.Context, chatID string) (string, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: tableKey(chatPK(chatID), skChat), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String(attrChatGroupID),
	})
	if err != nil {
		return "", fmt.Errorf("get chat %s: %w", chatID, err)
	}
	v, _ := out.Item[attrChatGroupID].(*types.AttributeValueMemberS)
	if v == nil {
		return "", nil
	}
	return v.Value, nil
}
