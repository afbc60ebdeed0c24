package httpapi

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// graphql-transport-ws says that an operation refused before it starts
// (validation, a limit, authorization, the subscriptions a connection may
// carry) is an `error` message carrying the errors, after which nothing
// more is sent for it. gqlgen sends most such refusals as a `next` whose
// result has errors and no data, followed by `complete`, and follows even
// its own `error` messages with a `complete`. refusingConn rewrites what
// goes out on the socket to what the protocol says; every other message
// passes as it was.

// Messages of graphql-transport-ws the server sends.
const (
	wsNext     = "next"
	wsError    = "error"
	wsComplete = "complete"
)

// refusingConn is a graphql-transport-ws socket whose refusals go out as
// `error` messages.
type refusingConn struct {
	transport.WebsocketConn
	mu      sync.Mutex
	started map[string]bool // operations a result has gone out for
	ended   map[string]bool // operations an `error` has ended: their `complete` is not sent
}

func newRefusingConn(c transport.WebsocketConn) *refusingConn {
	return &refusingConn{WebsocketConn: c, started: map[string]bool{}, ended: map[string]bool{}}
}

// WriteJSON sends a message, rewritten if it is a refusal.
func (c *refusingConn) WriteJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var m struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	c.mu.Lock()
	switch m.Type {
	case wsNext:
		if !c.started[m.ID] {
			c.started[m.ID] = true
			if errs, refused := refusal(b); refused {
				c.ended[m.ID] = true
				b, err = json.Marshal(struct {
					ID      string          `json:"id"`
					Type    string          `json:"type"`
					Payload json.RawMessage `json:"payload"`
				}{m.ID, wsError, errs})
			}
		}
	case wsError:
		c.ended[m.ID] = true
	case wsComplete:
		delete(c.started, m.ID)
		if c.ended[m.ID] {
			delete(c.ended, m.ID)
			c.mu.Unlock()
			return nil
		}
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.WebsocketConn.WriteJSON(json.RawMessage(b))
}

// refusal reports whether a `next` message is a refusal, a result with
// errors and no data, and returns its errors.
func refusal(message []byte) (errs json.RawMessage, ok bool) {
	var m struct {
		Payload struct {
			Data   json.RawMessage `json:"data"`
			Errors json.RawMessage `json:"errors"`
		} `json:"payload"`
	}
	if json.Unmarshal(message, &m) != nil {
		return nil, false
	}
	noData := len(m.Payload.Data) == 0 || bytes.Equal(m.Payload.Data, []byte("null"))
	hasErrors := len(m.Payload.Errors) > 0 && !bytes.Equal(m.Payload.Errors, []byte("null")) && !bytes.Equal(m.Payload.Errors, []byte("[]"))
	return m.Payload.Errors, noData && hasErrors
}

// SetReadLimit passes the read limit on to the socket.
func (c *refusingConn) SetReadLimit(limit int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

// SetReadDeadline passes the read deadline on to the socket.
func (c *refusingConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
