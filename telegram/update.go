package telegram

import (
	"encoding/json"
	"strings"
)

// Update is what the Bot API posts to a webhook; Fracti reads the bot's own
// membership changes and messages (/start, a group's migration).
type Update struct {
	UpdateID     int64              `json:"update_id"`
	Message      *Message           `json:"message,omitempty"`
	MyChatMember *ChatMemberUpdated `json:"my_chat_member,omitempty"`
}

// Message is an incoming message.
type Message struct {
	MessageID int64  `json:"message_id"`
	From      *User  `json:"from,omitempty"`
	Chat      Chat   `json:"chat"`
	Date      int64  `json:"date"`
	Text      string `json:"text,omitempty"`
	// MigrateToChatID is set, in the old group, when it became a supergroup
	// with this id; MigrateFromChatID in the new supergroup's first message.
	MigrateToChatID   int64 `json:"migrate_to_chat_id,omitempty"`
	MigrateFromChatID int64 `json:"migrate_from_chat_id,omitempty"`
}

// Command is the bot command the message starts with ("/start", also as
// "/start@FractiBot" or "/start payload"), lower-cased, or "".
func (m *Message) Command() string {
	if !strings.HasPrefix(m.Text, "/") {
		return ""
	}
	cmd, _, _ := strings.Cut(m.Text, " ")
	cmd, _, _ = strings.Cut(cmd, "@")
	return strings.ToLower(cmd)
}

// ChatMemberUpdated is a change of a member's standing in a chat; in
// my_chat_member, the bot's own.
type ChatMemberUpdated struct {
	Chat          Chat       `json:"chat"`
	From          User       `json:"from"`
	Date          int64      `json:"date"`
	OldChatMember ChatMember `json:"old_chat_member"`
	NewChatMember ChatMember `json:"new_chat_member"`
}

// ParseUpdate reads an update as the Bot API posts it. Fields Fracti does
// not read are ignored, whatever Telegram adds over time.
func ParseUpdate(body []byte) (Update, error) {
	var u Update
	err := json.Unmarshal(body, &u)
	return u, err
}
