package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
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

// WriteJSON sends a message, rewritten if it is a refusal. It reads the
// message's fields where they are, so that the events a socket carries are
// encoded once, as without it; only an operation's first result is looked
// into.
func (c *refusingConn) WriteJSON(v any) error {
	id, typ, payload, ok := messageFields(v)
	if !ok {
		return c.WebsocketConn.WriteJSON(v)
	}
	c.mu.Lock()
	switch typ {
	case wsNext:
		if !c.started[id] {
			c.started[id] = true
			if errs, refused := refusal(payload); refused {
				c.ended[id] = true
				v = struct {
					ID      string          `json:"id"`
					Type    string          `json:"type"`
					Payload json.RawMessage `json:"payload"`
				}{id, wsError, errs}
			}
		}
	case wsError:
		c.ended[id] = true
	case wsComplete:
		delete(c.started, id)
		if c.ended[id] {
			delete(c.ended, id)
			c.mu.Unlock()
			return nil
		}
	}
	c.mu.Unlock()
	return c.WebsocketConn.WriteJSON(v)
}

// messageFields reads the ID, Type and Payload of a message gqlgen's
// graphql-transport-ws exchanger is about to send (a struct of its own,
// which it hands to WriteJSON); ok is false for anything else, which passes
// untouched.
func messageFields(v any) (id, typ string, payload []byte, ok bool) {
	m := reflect.ValueOf(v)
	if m.Kind() == reflect.Pointer {
		m = m.Elem()
	}
	if m.Kind() != reflect.Struct {
		return "", "", nil, false
	}
	idF, typeF, payloadF := m.FieldByName("ID"), m.FieldByName("Type"), m.FieldByName("Payload")
	if idF.Kind() != reflect.String || typeF.Kind() != reflect.String ||
		payloadF.Kind() != reflect.Slice || payloadF.Type().Elem().Kind() != reflect.Uint8 {
		return "", "", nil, false
	}
	return idF.String(), typeF.String(), payloadF.Bytes(), true
}

// refusal reports whether a `next` message's payload is a refusal, a
// result with errors and no data, and returns its errors.
func refusal(payload []byte) (errs json.RawMessage, ok bool) {
	var result struct {
		Data   json.RawMessage `json:"data"`
		Errors json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(payload, &result) != nil {
		return nil, false
	}
	noData := len(result.Data) == 0 || bytes.Equal(result.Data, []byte("null"))
	hasErrors := len(result.Errors) > 0 && !bytes.Equal(result.Errors, []byte("null")) && !bytes.Equal(result.Errors, []byte("[]"))
	return result.Errors, noData && hasErrors
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
