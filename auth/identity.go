// Package auth turns Authorization headers into an Identity on the request
// context: Telegram Mini App init data ("tma <initData>") or a personal access
// token ("Bearer <token>").
package auth

import (
	"context"
	"strconv"
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
)

// WithIdentity returns a copy of ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the Identity stored by WithIdentity, and whether there was one.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// WithFailure returns a copy of ctx recording why the request's credentials were rejected.
func WithFailure(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, failureKey{}, err)
}

// FailureFrom returns the error stored by WithFailure, or nil if there is none.
func FailureFrom(ctx context.Context) error {
	err, _ := ctx.Value(failureKey{}).(error)
	return err
}
