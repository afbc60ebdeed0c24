// Package graph is Fracti's GraphQL layer: the resolvers, one
// <domain>.resolvers.go per schema file as gqlgen's follow-schema layout
// places them, and what they share: who may see what (access.go), Relay
// connections (connection.go), input validation, error codes and the
// handler with its limits. The executor gqlgen generates is the generated
// package; the store knows keys, the loaders batching.
package graph

import (
	"context"
	"log/slog"
	"time"

	"github.com/fracti/api/live"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/rates"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/fracti/api/tonverify"
)

// Resolver is the root of every resolver: each validates its input, checks
// who may see or change what, and calls the store or the request's loaders
// (after a write, loaders.Wrote).
type Resolver struct {
	// Store is the single table.
	Store *store.Store
	// Log receives resolver failures (slog.Default when nil).
	Log *slog.Logger
	// InviteLinks makes the Telegram links of new invites.
	InviteLinks InviteLinks
	// Tokens forgets a revoked access token at once (the authenticator's
	// cache); nil when nothing caches tokens.
	Tokens TokenForgetter
	// Now is the clock of access token expiry (nil: time.Now).
	Now func() time.Time
	// Quota counts operations against daily limits (nil: no limits).
	Quota *quota.Meter
	// Live hands out subscriptions to activity events (nil: subscriptions
	// are refused as unavailable).
	Live *live.Hub
	// Rates gives the day's exchange rates for conversions (nil: none
	// configured, so a conversion needs its rate given).
	Rates *rates.Service
	// Bot asks the Telegram Bot API about chats (connectTelegramChat); nil
	// when no bot token is configured.
	Bot *telegram.Client
	// Reminders sends remindDebtors' messages (nil: no bot configured).
	Reminders Reminders
	// TON checks TON payments on chain at submitSettlementTransaction (nil:
	// submissions stay PENDING for a checker elsewhere).
	TON *tonverify.Verifier
	// Receipts attaches receipts and pictures in object storage (nil:
	// NewHandler sets one without a bucket, which answers UNAVAILABLE).
	Receipts *receipts.Service
}

// Reminders reminds a group's debtors (notify.Notifier).
type Reminders interface {
	// RemindDebtors messages the group's debtors, at most once a day
	// (*notify.RateLimitedError otherwise).
	RemindDebtors(ctx context.Context, groupID string) (notify.ReminderReport, error)
}

// TokenForgetter drops what is remembered of an access token, by its hash.
type TokenForgetter interface {
	// ForgetToken drops the token with the hash from the cache.
	ForgetToken(hash string)
}

// UserForgetter drops what is remembered of a user's sign-in; the
// Authenticator is one, and eraseMyData uses it when Tokens is one too.
type UserForgetter interface {
	// ForgetUser drops the user's remembered sign-in.
	ForgetUser(userID int64)
}

// now is the resolvers' clock.
func (r *Resolver) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// InviteLinks names the Telegram bot and Mini App that invite links open:
// https://t.me/<BotUsername>/<AppName>?startapp=<secret>. With either empty,
// invites carry their secret but no link.
type InviteLinks struct {
	// BotUsername is the bot's @username, without the @.
	BotUsername string
	// AppName is the Mini App's short name, as registered with @BotFather.
	AppName string
}

// link is the Telegram link carrying the invite secret, or nil.
func (l InviteLinks) link(secret string) *string {
	if l.BotUsername == "" || l.AppName == "" {
		return nil
	}
	s := "https://t.me/" + l.BotUsername + "/" + l.AppName + "?startapp=" + secret
	return &s
}
