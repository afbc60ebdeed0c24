package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error is a refusal by the Bot API: its error_code (or the HTTP status
// when the answer was not the Bot API's JSON), its description, and the
// parameters that say what to do about it.
type Error struct {
	Method      string
	Code        int
	Description string
	// RetryAfter is parameters.retry_after of a 429: wait that long before
	// sending again (0 when Telegram did not say).
	RetryAfter time.Duration
	// MigrateToChatID is parameters.migrate_to_chat_id of a 400 for a group
	// that became a supergroup: the chat's new id (0 otherwise).
	MigrateToChatID int64
}

func (e *Error) Error() string {
	return fmt.Sprintf("telegram: %s: %d %s", e.Method, e.Code, e.Description)
}

func secondsOf(n int) time.Duration { return time.Duration(n) * time.Second }

// AsError is the Bot API's refusal in err, if that is what it is.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// RateLimited reports a 429 and the wait it asked for (0 when it named
// none: then back off on your own).
func RateLimited(err error) (retryAfter time.Duration, ok bool) {
	if e, is := AsError(err); is && e.Code == http.StatusTooManyRequests {
		return e.RetryAfter, true
	}
	return 0, false
}

// Forbidden reports a 403: for a private chat, the user never started the
// bot or blocked it ("bot can't initiate conversation with a user", "bot
// was blocked by the user", "user is deactivated"); for a group, the bot is
// no longer in it ("bot was kicked from the supergroup chat", "bot is not a
// member of the group chat", "the group chat was deleted").
func Forbidden(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == http.StatusForbidden
}

// MigratedTo is the new id of a group chat that became a supergroup, when
// err says so (a 400 with parameters.migrate_to_chat_id).
func MigratedTo(err error) (int64, bool) {
	if e, ok := AsError(err); ok && e.MigrateToChatID != 0 {
		return e.MigrateToChatID, true
	}
	return 0, false
}

// Temporary reports whether sending again later may succeed: a 429, a
// Telegram-side 5xx, or no answer at all (a network failure, a timeout).
// Other refusals (400, 401, 403, 404) would answer the same again, and a
// cancelled caller has given up.
func Temporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if e, ok := AsError(err); ok {
		return e.Code == http.StatusTooManyRequests || e.Code >= 500
	}
	return true
}
