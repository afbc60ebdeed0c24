package telegram

import (
	"context"
)

// User is a Telegram user as the Bot API describes one.
type User struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name,omitempty"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
}

// Chat is a chat as the Bot API describes one: Type is private, group,
// supergroup or channel.
type Chat struct {
	ID    int64  `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
}

// IsPrivate reports a one-to-one chat with a user.
func (c Chat) IsPrivate() bool { return c.Type == "private" }

// The statuses of a chat member.
const (
	StatusCreator       = "creator"
	StatusAdministrator = "administrator"
	StatusMember        = "member"
	StatusRestricted    = "restricted"
	StatusLeft          = "left"
	StatusKicked        = "kicked"
)

// ChatMember is one user's standing in a chat.
type ChatMember struct {
	User   User   `json:"user"`
	Status string `json:"status"`
	// IsMember is set for restricted members only: whether they are still
	// in the chat.
	IsMember bool `json:"is_member,omitempty"`
}

// InChat reports whether the member is in the chat: its creator, an
// administrator, a member, or restricted but still a member.
func (m ChatMember) InChat() bool {
	switch m.Status {
	case StatusCreator, StatusAdministrator, StatusMember:
		return true
	case StatusRestricted:
		return m.IsMember
	}
	return false
}

// GetChatMember is userID's standing in chatID. Telegram answers 400 ("chat
// not found", "user not found") when the bot cannot see the chat, and 403
// when it was removed from it.
func (c *Client) GetChatMember(ctx context.Context, chatID, userID int64) (ChatMember, error) {
	var m ChatMember
	err := c.call(ctx, "getChatMember", map[string]int64{"chat_id": chatID, "user_id": userID}, &m)
	return m, err
}

// Button is an inline keyboard button that opens a URL (such as a Mini
// App's direct link).
type Button struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// Outgoing is a message to send: Text is HTML (escape what people wrote with
// EscapeHTML), Buttons one row of URL buttons under it.
type Outgoing struct {
	ChatID              int64
	Text                string
	Buttons             []Button
	DisableNotification bool
}

type sendMessageParams struct {
	ChatID              int64  `json:"chat_id"`
	Text                string `json:"text"`
	ParseMode           string `json:"parse_mode"`
	LinkPreviewOptions  any    `json:"link_preview_options,omitempty"`
	DisableNotification bool   `json:"disable_notification,omitempty"`
	ReplyMarkup         any    `json:"reply_markup,omitempty"`
}

// SendMessage sends m once (no retry: the caller decides, from the error,
// whether and when to send again) and returns the sent message's id.
func (c *Client) SendMessage(ctx context.Context, m Outgoing) (int64, error) {
	p := sendMessageParams{
		ChatID: m.ChatID, Text: m.Text, ParseMode: "HTML", DisableNotification: m.DisableNotification,
		LinkPreviewOptions: map[string]bool{"is_disabled": true},
	}
	if len(m.Buttons) > 0 {
		p.ReplyMarkup = map[string][][]Button{"inline_keyboard": {m.Buttons}}
	}
	var sent struct {
		MessageID int64 `json:"message_id"`
	}
	err := c.call(ctx, "sendMessage", p, &sent)
	return sent.MessageID, err
}
