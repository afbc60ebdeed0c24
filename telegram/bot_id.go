package telegram

import (
	"strconv"
	"strings"
)

// BotID is the bot's own user id, the number before ':' in its token
// (0 when the client has no token of that shape): what getChatMember is
// asked about to learn whether the bot is in a chat.
func (c *Client) BotID() int64 {
	head, _, ok := strings.Cut(c.token, ":")
	if !ok {
		return 0
	}
	id, err := strconv.ParseInt(head, 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}
