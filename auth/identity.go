// Package auth turns Authorization headers into an Identity on the request
// context: Telegram Mini App init data ("tma <initData>") or a personal access
// token ("Bearer <token>").
package auth

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Method says which kind of credential an Identity was established with.
type Method string

const (
	// MethodTelegram means the caller sent Telegram Mini App init data.
	MethodTelegram Method = "tma"
	// MethodToken means the caller sent a personal access token.
	MethodToken Method = "token"
)

// Identity is the authenticated caller of a request.
type Identity struct {
	UserID   int64  // Telegram user id
	Name     string // display name: first_name + " " + last_name (trimmed); for tokens, the name stored with the token
	Username string // Telegram @username without "@", may be empty
	PhotoURL string
	Method   Method
	// StartParam is the start parameter the Mini App was opened with (the
	// signed init data's start_param; "" if none, and for tokens): an invite
	// link's secret, for one.
	StartParam string
	// LanguageCode is the user's Telegram language_code from the init data
	// ("ru"; "" if none, and for tokens).
	LanguageCode string
	// Scopes are what the caller may do: every scope for Telegram sign-ins,
	// the token's own for access tokens.
	Scopes []Scope
	// ExpiresAt is when the caller's access token expires; zero for Telegram
	// sign-ins and tokens that never expire.
	ExpiresAt time.Time
}

// UserKey returns the user id as the decimal string the API uses everywhere.
func (i Identity) UserKey() string {
	return strconv.FormatInt(i.UserID, 10)
}

// Distinct unexported key types so no other package can read or overwrite
// these context values by accident.
type (
	identityKey struct{}
	failureKey  struct{}
	pendingKey  struct{}
)

// WithIdentity returns a copy of ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the request's Identity, and whether there is one. A
// credential check deferred by Middleware runs now, once per request.
func FromContext(ctx context.Context) (Identity, bool) {
	if id, ok := ctx.Value(identityKey{}).(Identity); ok {
		return id, true
	}
	if p, ok := ctx.Value(pendingKey{}).(*pendingCheck); ok {
		id, err := p.result()
		return id, err == nil && id.UserID != 0
	}
	return Identity{}, false
}

// Known returns the request's Identity if it is known already. Unlike
// FromContext it never runs a deferred credential check, so that looking
// (say, for a log line) costs no token lookup.
func Known(ctx context.Context) (Identity, bool) {
	if id, ok := ctx.Value(identityKey{}).(Identity); ok {
		return id, id.UserID != 0
	}
	if p, ok := ctx.Value(pendingKey{}).(*pendingCheck); ok && p.done.Load() {
		return p.id, p.err == nil && p.id.UserID != 0
	}
	return Identity{}, false
}

// WithFailure returns a copy of ctx recording why the request's credentials were rejected.
func WithFailure(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, failureKey{}, err)
}

// FailureFrom returns why the request's credentials were rejected, or nil
// if they were not (or there were none). A credential check deferred by
// Middleware runs now, once per request.
func FailureFrom(ctx context.Context) error {
	if err, ok := ctx.Value(failureKey{}).(error); ok {
		return err
	}
	if p, ok := ctx.Value(pendingKey{}).(*pendingCheck); ok {
		_, err := p.result()
		return err
	}
	return nil
}

// pendingCheck is a credential check that runs when the request first asks
// who its caller is, so that a request refused before it runs (malformed,
// over a limit) never costs a token lookup.
type pendingCheck struct {
	once  sync.Once
	check func() (Identity, error)
	id    Identity
	err   error
	done  atomic.Bool // set once id and err hold the check's outcome
}

func (p *pendingCheck) result() (Identity, error) {
	p.once.Do(func() {
		p.id, p.err = p.check()
		p.done.Store(true)
	})
	return p.id, p.err
}

// withPendingCheck returns a copy of ctx whose identity check runs on first use.
func withPendingCheck(ctx context.Context, check func() (Identity, error)) context.Context {
	return context.WithValue(ctx, pendingKey{}, &pendingCheck{check: check})
}
