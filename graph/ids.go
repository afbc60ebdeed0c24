package graph

import (
	"regexp"
	"strings"
)

// Ids: a User's is the Telegram user id ("123456789"); a Group's, Expense's
// and Settlement's a UUID; a RecurringExpense's "rec_" and 32 hex digits; a Comment's "cmt_" and 32 hex digits; a Member's "<groupId>:<userId>" (a placeholder's
// userId is "ph_" and 32 hex digits); an Invite's "<groupId>:<inviteId>"; a Split's, a
// Payment's and a Share's "<expenseId>:<userId>"; a Balance's
// "<groupId>:<userId>:<currency>", a Debt's
// "<groupId>:<fromId>:<toId>:<currency>", a CurrencyTotal's
// "<userId>:<currency>" (those three are built where they are resolved).
// Apollo and urql key their caches by type and id, so a user's memberships
// in two groups must not share an id.

var (
	telegramIDPattern = regexp.MustCompile(`^[1-9][0-9]{0,19}$`)
	// memberUserIDPattern is a member's user id: a Telegram user's, or a
	// placeholder's (store.PlaceholderPrefix and 32 hex digits).
	memberUserIDPattern = regexp.MustCompile(`^([1-9][0-9]{0,19}|ph_[0-9a-f]{32})$`)
	uuidPattern         = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// parseMemberID splits a Member id; ok is false if id is not one.
func parseMemberID(id string) (groupID, userID string, ok bool) {
	groupID, userID, found := strings.Cut(id, ":")
	return groupID, userID, found && uuidPattern.MatchString(groupID) && memberUserIDPattern.MatchString(userID)
}
