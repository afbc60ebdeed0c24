package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrTooManySubscriptions means a connection already has as many
// subscriptions as it may.
var ErrTooManySubscriptions = errors.New("too many subscriptions on this connection")

// ErrTooManyConnections means a user already has as many live connections
// to this instance as they may.
var ErrTooManyConnections = errors.New("too many live connections for this user")

// Connection is one client connection that carries subscriptions (a
// WebSocket, or one server-sent events request): its limit, its credential
// check and its way out.
type Connection struct {
	// MaxSubscriptions bounds the subscriptions open at once (0: no limit).
	MaxSubscriptions int
	// Allowed is asked before each delivery whether the connection's
	// credential still holds (a token revoked or expired since); an error
	// ends the subscription and is passed to Drop.
	Allowed func() error
	// Drop closes the connection for a reason the hub found: ErrSlowConsumer,
	// or Allowed's error.
	Drop func(reason error)

	mu   sync.Mutex
	open int
}

// acquire takes a subscription slot.
func (c *Connection) acquire() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.MaxSubscriptions > 0 && c.open >= c.MaxSubscriptions {
		return fmt.Errorf("%w (the limit is %d)", ErrTooManySubscriptions, c.MaxSubscriptions)
	}
	c.open++
	return nil
}

// release gives a subscription slot back.
func (c *Connection) release() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.open--
	c.mu.Unlock()
}

func (c *Connection) allowed() error {
	if c == nil || c.Allowed == nil {
		return nil
	}
	return c.Allowed()
}

func (c *Connection) drop(reason error) {
	if c != nil && c.Drop != nil {
		c.Drop(reason)
	}
}

type connectionKey struct{}

// WithConnection puts the connection subscriptions made on ctx belong to.
func WithConnection(ctx context.Context, c *Connection) context.Context {
	return context.WithValue(ctx, connectionKey{}, c)
}

// connectionFrom is the connection of ctx, or nil (no limits, nothing to drop).
func connectionFrom(ctx context.Context) *Connection {
	c, _ := ctx.Value(connectionKey{}).(*Connection)
	return c
}

// UserConnections bounds how many live connections each user has open on
// this instance.
type UserConnections struct {
	// Max is the limit per user (0: no limit).
	Max int

	mu   sync.Mutex
	open map[string]int
}

// Open takes one of the user's connection slots; call release when the
// connection ends.
func (u *UserConnections) Open(userID string) (release func(), err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.open == nil {
		u.open = map[string]int{}
	}
	if u.Max > 0 && u.open[userID] >= u.Max {
		return nil, fmt.Errorf("%w (the limit is %d)", ErrTooManyConnections, u.Max)
	}
	u.open[userID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			defer u.mu.Unlock()
			if u.open[userID]--; u.open[userID] <= 0 {
				delete(u.open, userID)
			}
		})
	}, nil
}
