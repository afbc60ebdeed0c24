// Package wsclient is a small graphql-transport-ws client for tests and the
// benchmark: it speaks the protocol a browser's graphql-ws speaks, over
// github.com/coder/websocket.
package wsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Message is one protocol message.
type Message struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
	// At is when the client read the message's frame, before decoding it.
	At time.Time `json:"-"`
}

// Conn is an acknowledged connection. Messages other than pings are
// delivered on Messages in order; pings are answered.
type Conn struct {
	ws       *websocket.Conn
	Messages chan Message
	// Closed receives the close status once the connection ends.
	Closed chan CloseError
	mu     sync.Mutex
}

// CloseError is how the server closed the connection.
type CloseError struct {
	Code   int
	Reason string
	Err    error
}

func (e CloseError) Error() string {
	return fmt.Sprintf("closed with %d %q (%v)", e.Code, e.Reason, e.Err)
}

// Dial opens a WebSocket to url (http:// or ws://) and sends connection_init
// with payload; it returns once the server acknowledges, or the close the
// server answered with.
func Dial(ctx context.Context, url string, payload map[string]any) (*Conn, error) {
	c, err := dialAcknowledged(ctx, url, payload)
	if err != nil {
		return nil, err
	}
	c.Messages, c.Closed = make(chan Message, 1024), make(chan CloseError, 1)
	go c.readLoop()
	return c, nil
}

// dialAcknowledged opens the WebSocket and waits for connection_ack.
func dialAcknowledged(ctx context.Context, url string, payload map[string]any) (*Conn, error) {
	url = strings.Replace(url, "http", "ws", 1)
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(16 << 20)
	c := &Conn{ws: ws}
	body, _ := json.Marshal(payload)
	if err := c.send(ctx, Message{Type: "connection_init", Payload: body}); err != nil {
		return nil, err
	}
	var first Message
	if err := c.read(ctx, &first); err != nil {
		return nil, err
	}
	if first.Type != "connection_ack" {
		_ = ws.CloseNow()
		return nil, fmt.Errorf("expected connection_ack, got %s", first.Type)
	}
	return c, nil
}

func (c *Conn) read(ctx context.Context, m *Message) error {
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return CloseError{Code: int(ce.Code), Reason: ce.Reason, Err: err}
		}
		return CloseError{Code: -1, Err: err}
	}
	m.At = time.Now()
	return json.Unmarshal(data, m)
}

func (c *Conn) readLoop() {
	defer close(c.Messages)
	for {
		var m Message
		if err := c.read(context.Background(), &m); err != nil {
			var ce CloseError
			errors.As(err, &ce)
			c.Closed <- ce
			return
		}
		if m.Type == "ping" {
			_ = c.send(context.Background(), Message{Type: "pong"})
			continue
		}
		c.Messages <- m
	}
}

func (c *Conn) send(ctx context.Context, m Message) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// Subscribe starts operation id with the query and variables.
func (c *Conn) Subscribe(ctx context.Context, id, query string, vars map[string]any) error {
	payload, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return c.send(ctx, Message{ID: id, Type: "subscribe", Payload: payload})
}

// Complete stops operation id.
func (c *Conn) Complete(ctx context.Context, id string) error {
	return c.send(ctx, Message{ID: id, Type: "complete"})
}

// Close closes the connection normally.
func (c *Conn) Close() error { return c.ws.Close(websocket.StatusNormalClosure, "bye") }

// CloseNow drops the connection without a close handshake.
func (c *Conn) CloseNow() error { return c.ws.CloseNow() }

// DialError is the close a refused Dial ended with, if that is what it was.
func DialError(err error) (CloseError, bool) {
	var ce CloseError
	ok := errors.As(err, &ce)
	return ce, ok
}

// Subscription is an operation DialIdle starts.
type Subscription struct {
	ID, Query string
	Variables map[string]any
}

// DialIdle opens an acknowledged connection, starts the subscriptions, and
// returns the socket without reading it any more: no goroutine of its own,
// so that a test or a benchmark holding thousands sees the server's cost
// alone. The server's pings go unanswered: hold it for less than two ping
// intervals.
func DialIdle(ctx context.Context, url string, payload map[string]any, subs ...Subscription) (*websocket.Conn, error) {
	c, err := dialAcknowledged(ctx, url, payload)
	if err != nil {
		return nil, err
	}
	for _, s := range subs {
		body, _ := json.Marshal(map[string]any{"query": s.Query, "variables": s.Variables})
		if err := c.send(ctx, Message{ID: s.ID, Type: "subscribe", Payload: body}); err != nil {
			_ = c.ws.CloseNow()
			return nil, err
		}
	}
	return c.ws, nil
}
