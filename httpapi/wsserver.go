package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/live"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Our own graphql-transport-ws server. gqlgen's transport runs a goroutine
// per subscription (waiting on its channel) and three more per connection;
// here a connection has two, its reader (the request's goroutine) and its
// writer, whatever it carries. A subscription is an entry in the
// connection's map and a live.Sink: the hub queues a group's events on the
// connection, and the writer renders each event once per payload key
// (graph.PayloadKey: the normalized operation and variables, and the viewer
// when the selection depends on it) for every subscriber of the event on
// this instance (live.Shared), then sends those bytes.
//
// The older subscriptions-transport-ws subprotocol stays on gqlgen's
// transport.

// Messages of graphql-transport-ws.
const (
	wsConnectionInit = "connection_init"
	wsConnectionAck  = "connection_ack"
	wsPing           = "ping"
	wsPong           = "pong"
	wsSubscribe      = "subscribe"
)

// Close codes of graphql-transport-ws for a client that breaks the protocol.
const (
	closeBadRequest      = 4400 // an unexpected or undecodable message
	closeInitTimeout     = 4408 // no connection_init in time
	closeDuplicateID     = 4409 // an operation id already in use
	closeTooManyInits    = 4429 // connection_init sent twice
	closeNormal          = 1000
	wsWriteTimeout       = 10 * time.Second // a write that takes longer ends the connection
	renderTimeout        = liveResponseTimeout
	maxQueuedOutMessages = 1024 // other messages (results, pongs) a connection may have waiting
)

// liveResponseTimeout bounds rendering one event's payload.
const liveResponseTimeout = 30 * time.Second

// wsTransport is the WebSocket transport at /graphql.
type wsTransport struct {
	l      *liveTransports
	legacy transport.Websocket // gqlgen's, for subscriptions-transport-ws
	buffer int                 // events a subscription may have waiting (LIVE_BUFFER)
}

var _ graphql.Transport = wsTransport{}

// websocketServer is the WebSocket transport: ours for graphql-transport-ws,
// gqlgen's for the legacy subprotocol.
func (l *liveTransports) websocketServer(buffer int) wsTransport {
	if buffer <= 0 {
		buffer = live.DefaultBuffer
	}
	return wsTransport{l: l, legacy: l.websocket(), buffer: buffer}
}

// Supports takes every WebSocket upgrade.
func (t wsTransport) Supports(r *http.Request) bool { return r.Header.Get("Upgrade") != "" }

// Do serves one WebSocket connection until it ends.
func (t wsTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	if !offersSubprotocol(r, graphqlTransportWS) {
		t.legacy.Do(w, r, exec)
		return
	}
	opts := t.l.accept.impl.AcceptOptions
	opts.Subprotocols = []string{graphqlTransportWS}
	lb := &lightBuffers{ResponseWriter: w}
	ws, err := websocket.Accept(lb, r, &opts)
	if err != nil {
		return // Accept answered (403 for an origin CORS does not allow)
	}
	ws.SetReadLimit(t.l.limits.MaxMessageBytes)
	ctx, cancel := context.WithCancelCause(r.Context())
	c := &wsConn{t: t, ws: ws, exec: exec, ctx: ctx, cancel: cancel, subs: map[string]*wsSub{}}
	if lb.br != nil {
		c.br, c.waiter, c.conn = lb.br, newReadWaiter(lb.conn), lb.conn
	}
	c.alive.Store(time.Now().UnixNano())
	if s, _ := r.Context().Value(socketKey{}).(*socket); s != nil {
		s.set(c.closeWith, t.l.metrics.LiveConnectionOpened(transportName(r)))
	}
	if !c.init() {
		releaseFrom(c.ctx)() // when it was refused after its user's count was taken
		cancel(nil)
		return
	}
	// The handler returns now: a fresh goroutine, with a small stack, reads
	// the connection until it ends, and the request's goroutine, its stack
	// and net/http's buffers are not kept while the connection is idle.
	end := liveEndFrom(r.Context())
	end.detach()
	c.mu.Lock()
	c.pinger = time.AfterFunc(t.l.limits.PingInterval, c.ping)
	c.mu.Unlock()
	go c.serve(end)
}

// serve reads the client's messages until the connection ends, then ends
// it: its operations, its user's count, and what the handler's layers left
// for its end (end).
func (c *wsConn) serve(end *liveEnd) {
	// The server shutting down closes the connection (1000); the pinger
	// drops one whose client has gone silent.
	stop := context.AfterFunc(c.ctx, func() {
		reason := "terminated"
		if errors.Is(context.Cause(c.ctx), errShuttingDown) {
			reason = errShuttingDown.Error()
		}
		c.closeWith(closeNormal, reason)
	})
	c.finish = func() {
		c.end()
		stop()
		releaseFrom(c.ctx)()
		c.cancel(nil)
		end.end()
	}
	c.readLoop()
}

// offersSubprotocol reports whether the handshake offers the subprotocol.
func offersSubprotocol(r *http.Request, name string) bool {
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if strings.TrimSpace(p) == name {
				return true
			}
		}
	}
	return false
}

// wsMessage is a graphql-transport-ws message as it arrives.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsConn is one graphql-transport-ws connection.
type wsConn struct {
	t      wsTransport
	ws     *websocket.Conn
	exec   graphql.GraphExecutor
	ctx    context.Context // the connection's: its identity and live.Connection after init
	cancel context.CancelCauseFunc
	alive  atomic.Int64 // when the client last sent anything (Unix ns)

	mu      sync.Mutex
	out     []wsOut // for the writer, in order
	queued  int     // messages in out that are not events
	closing *wsClose
	subs    map[string]*wsSub // operations in progress by id
	writing bool              // a writer goroutine is running
	ended   bool              // the connection is over: nothing more is queued
	pinger  *time.Timer
	writer  sync.WaitGroup
	finish  func() // ends the connection once its reader is done (serve)

	// The idle reader's wait (idleWait): the connection's read buffer and
	// socket, and gate, which keeps the reader's look at the buffer apart
	// from the close handshake's reads (the writer's ws.Close).
	br     *bufio.Reader
	waiter *readWaiter
	gate   sync.Mutex
	// The socket, which the writer writes an event's frame to in one write
	// (writeEvent); nil when the connection was not taken over through
	// lightBuffers, and then frames go through ws.
	conn net.Conn
}

// wsOut is a message for the writer: bytes to send, or a subscription's
// events to render and send.
type wsOut struct {
	msg    []byte
	ping   bool // a ping: not counted against the messages a connection may have waiting
	sub    *wsSub
	events []store.Event
	shared *live.Shared
}

// wsClose is the close the writer is to send.
type wsClose struct {
	code   int
	reason string
}

// wsSub is one operation in progress: a subscription, or a query or a
// mutation being answered.
type wsSub struct {
	c       *wsConn
	id      string
	op      *graphql.OperationContext
	key     string // graph.PayloadKey
	ctx     context.Context
	cancel  context.CancelFunc
	hub     *live.Subscription // once the hub holds it (c.mu)
	pending int                // events queued for it (c.mu)
	done    bool               // its last message is queued, or not to be sent (c.mu)
	stopped bool               // the client completed it: none of its events go out (c.mu)
}

// init waits for connection_init and checks its credentials; false means
// the connection was refused and closed.
func (c *wsConn) init() bool {
	var timedOut atomic.Bool
	timer := time.AfterFunc(initTimeout, func() {
		timedOut.Store(true)
		_ = c.ws.Close(closeInitTimeout, "Connection initialisation timeout")
	})
	// The read holds no context: coder/websocket drops the TCP connection
	// when a read's context ends, and the server shutting down closes it
	// with 1000 instead (the close handshake ends the read).
	shutdown := context.AfterFunc(c.ctx, func() {
		_ = c.ws.Close(closeNormal, errShuttingDown.Error())
	})
	m, err := c.readInit()
	if !shutdown() {
		timer.Stop()
		return false
	}
	if !timer.Stop() || timedOut.Load() {
		return false
	}
	switch {
	case errors.Is(err, errBadMessage):
		c.closeNow(closeBadRequest, "invalid message")
		return false
	case err != nil:
		_ = c.ws.CloseNow()
		return false
	case m.Type == wsSubscribe: // graphql-transport-ws: Unauthorized before the ack
		c.closeNow(closeUnauthorized, "Unauthorized")
		return false
	case m.Type != wsConnectionInit:
		c.closeNow(closeBadRequest, "expected connection_init")
		return false
	}
	var payload transport.InitPayload
	if len(m.Payload) > 0 && json.Unmarshal(m.Payload, &payload) != nil {
		c.closeNow(closeBadRequest, "connection_init's payload is not an object")
		return false
	}
	admitted, code, reason := c.t.l.admitInit(c.ctx, payload.Authorization(), c.closeWith)
	if code != 0 {
		c.closeNow(websocket.StatusCode(code), reason)
		return false
	}
	c.ctx = admitted
	return c.write(c.ctx, []byte(`{"type":"connection_ack"}`)) == nil
}

// readInit reads the client's first message other than a ping or a pong,
// which graphql-transport-ws allows at any time: a ping is answered.
func (c *wsConn) readInit() (wsMessage, error) {
	for {
		m, err := c.read(context.Background())
		switch {
		case err != nil:
			return m, err
		case m.Type == wsPing:
			if err := c.write(context.Background(), []byte(`{"type":"pong"}`)); err != nil {
				return m, err
			}
		case m.Type != wsPong:
			return m, nil
		}
	}
}

// read reads one message.
func (c *wsConn) read(ctx context.Context) (wsMessage, error) {
	var m wsMessage
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		return m, err
	}
	c.alive.Store(time.Now().UnixNano())
	if err := json.Unmarshal(data, &m); err != nil || m.Type == "" {
		return m, errBadMessage
	}
	return m, nil
}

var errBadMessage = errors.New("not a graphql-transport-ws message")

// readLoop reads the client's messages until the connection ends, then
// ends it (finish). After a message that took work (starting or stopping an
// operation) a fresh goroutine reads on: an idle connection's reader then
// has the small stack its wait needs, not the one that work grew.
//
// It reads without a deadline or a context: what ends a connection closes
// its socket (the close handshake, the pinger, the hub's drop), which ends
// the read, and an idle read holds nothing more.
func (c *wsConn) readLoop() {
	for {
		c.idleWait()
		m, err := c.read(context.Background())
		if errors.Is(err, errBadMessage) {
			c.closeWith(closeBadRequest, "invalid message")
			continue // until the writer has closed the socket
		}
		if err != nil {
			c.finish()
			return
		}
		switch m.Type {
		case wsPing:
			c.send([]byte(`{"type":"pong"}`))
		case wsPong:
		case wsSubscribe:
			c.subscribe(m)
			go c.readLoop()
			return
		case wsComplete:
			c.stop(m.ID)
			go c.readLoop()
			return
		case wsConnectionInit:
			c.closeWith(closeTooManyInits, "Too many initialisation requests")
		default:
			c.closeWith(closeBadRequest, "unexpected message "+closeReason(m.Type))
		}
	}
}

// idleWait waits until the client has sent something, on a shallow stack
// (see readWaiter), unless it is already buffered.
func (c *wsConn) idleWait() {
	if c.waiter == nil {
		return
	}
	c.gate.Lock()
	buffered := c.br.Buffered() > 0
	c.gate.Unlock()
	if !buffered {
		c.waiter.wait()
	}
}

// subscribe starts an operation.
func (c *wsConn) subscribe(m wsMessage) {
	c.mu.Lock()
	if m.ID == "" {
		c.mu.Unlock()
		c.closeWith(closeBadRequest, "subscribe without an id")
		return
	}
	if _, dup := c.subs[m.ID]; dup {
		c.mu.Unlock()
		c.closeWith(closeDuplicateID, closeReason("Subscriber for "+m.ID+" already exists"))
		return
	}
	ctx, cancel := context.WithCancel(graphql.StartOperationTrace(c.ctx))
	s := &wsSub{c: c, id: m.ID, ctx: ctx, cancel: cancel}
	c.subs[m.ID] = s
	c.mu.Unlock()

	// No Headers: the handshake's are not kept by an idle connection, and
	// nothing an operation runs reads them (its credentials came in
	// connection_init).
	params := &graphql.RawParams{}
	if err := json.Unmarshal(m.Payload, params); err != nil {
		s.refuse(gqlerror.List{{Message: "invalid json", Extensions: map[string]any{"code": errcode.ValidationFailed}}})
		return
	}
	now := graphql.Now()
	params.ReadTime = graphql.TraceTiming{Start: now, End: now}
	// Everything after runs in its own goroutine, which ends when the
	// operation has started (a subscription) or answered (the others).
	go s.start(params)
}

// start parses, validates and starts the operation.
func (s *wsSub) start(params *graphql.RawParams) {
	c := s.c
	defer func() {
		if r := recover(); r != nil {
			err := graphql.DefaultRecover(s.ctx, r)
			s.refuse(gqlerror.List{{Message: err.Error()}})
		}
	}()
	op, errs := c.exec.CreateOperationContext(s.ctx, params)
	if errs != nil {
		resp := c.exec.DispatchError(graphql.WithOperationContext(s.ctx, op), errs)
		s.refuse(resp.Errors)
		return
	}
	s.op = op
	if op.Operation.Operation != ast.Subscription {
		responses, ctx := c.exec.DispatchOperation(s.ctx, op)
		for first := true; ; first = false {
			resp := responses(ctx)
			switch {
			case resp == nil:
				s.finish()
				return
			case first && refused(resp):
				s.refuse(resp.Errors)
				return
			default:
				s.next(resp) // and any incremental results after it
			}
		}
	}
	s.key = graph.PayloadKey(op, viewerKey(s.ctx))
	responses, ctx := c.exec.DispatchOperation(live.WithSink(s.ctx, s), op)
	// The subscription's stream ends at once when it was opened (its events
	// come to the sink); a response is its refusal.
	if resp := responses(ctx); resp != nil {
		if refused(resp) {
			s.refuse(resp.Errors)
		} else {
			s.next(resp)
			s.finish()
		}
	}
}

// viewerKey is who the connection's viewer is.
func viewerKey(ctx context.Context) string {
	if id, ok := auth.FromContext(ctx); ok {
		return id.UserKey()
	}
	return ""
}

// refused reports whether a first result is a refusal: errors and no data.
func refused(resp *graphql.Response) bool {
	return len(resp.Errors) > 0 && (len(resp.Data) == 0 || string(resp.Data) == "null")
}

// stop ends an operation the client completed: nothing more is sent for it.
func (c *wsConn) stop(id string) {
	c.mu.Lock()
	s := c.subs[id]
	var hub *live.Subscription
	if s != nil {
		s.done, s.stopped = true, true
		delete(c.subs, id)
		hub = s.hub
	}
	c.mu.Unlock()
	if s != nil {
		s.cancel()
	}
	if hub != nil {
		hub.Close()
	}
}

// end ends the connection's operations once it is closed, and waits for
// its writer.
func (c *wsConn) end() {
	c.mu.Lock()
	dropped := c.out
	c.ended, c.out = true, nil
	if c.pinger != nil {
		c.pinger.Stop()
	}
	var subs []*wsSub
	var hubs []*live.Subscription
	for id, s := range c.subs {
		s.done, s.stopped = true, true
		subs = append(subs, s)
		if s.hub != nil {
			hubs = append(hubs, s.hub)
		}
		delete(c.subs, id)
	}
	c.mu.Unlock()
	releaseOuts(dropped)
	c.cancel(nil)
	for _, s := range subs {
		s.cancel()
	}
	for _, h := range hubs {
		h.Close()
	}
	c.writer.Wait()
}

// Opened keeps the hub's subscription, to close it when the client
// completes it or goes away.
func (s *wsSub) Opened(hub *live.Subscription) {
	c := s.c
	c.mu.Lock()
	gone := s.stopped
	if !gone {
		s.hub = hub
	}
	c.mu.Unlock()
	if gone { // completed, or the connection ended, while it was opening
		hub.Close()
	}
}

// refuse sends the operation's `error` message and ends it.
func (s *wsSub) refuse(errs gqlerror.List) {
	b, err := json.Marshal(errs)
	if err != nil {
		b = []byte(`[{"message":"internal error"}]`)
	}
	s.end(message(s.id, wsError, b))
}

// next sends one result, unless the client completed the operation first
// (then its cancelled result goes nowhere).
func (s *wsSub) next(resp *graphql.Response) {
	b, err := json.Marshal(resp)
	if err != nil { // our bug, not the client's
		panic(err)
	}
	c := s.c
	c.mu.Lock()
	if !s.done {
		c.queueLocked(wsOut{msg: message(s.id, wsNext, b)})
	}
	c.mu.Unlock()
}

// finish sends the operation's `complete` and ends it.
func (s *wsSub) finish() { s.end(message(s.id, wsComplete, nil)) }

// end sends the operation's last message, unless the client completed it
// first, and forgets it.
func (s *wsSub) end(last []byte) {
	c := s.c
	c.mu.Lock()
	if !s.done {
		s.done = true
		if c.subs[s.id] == s {
			delete(c.subs, s.id)
		}
		c.queueLocked(wsOut{msg: last})
	}
	c.mu.Unlock()
	s.cancel()
}

// Deliver queues a group's events for the subscription (the hub's lock is
// held: nothing here waits).
func (s *wsSub) Deliver(events []store.Event, shared *live.Shared) bool {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.done || c.ended {
		return true
	}
	if s.pending+len(events) > c.t.buffer {
		return false
	}
	s.pending += len(events)
	shared.Hold() // until the writer has written them (writeOut) or dropped them
	c.queueLocked(wsOut{sub: s, events: events, shared: shared})
	return true
}

// Ended completes the subscription, after the events queued before: the
// hub ended it (the membership ended), or it was stopped (then nothing is
// sent).
func (s *wsSub) Ended() {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	if c.subs[s.id] == s {
		delete(c.subs, s.id)
	}
	c.queueLocked(wsOut{msg: message(s.id, wsComplete, nil)})
	s.cancel() // its setup's context: nothing waits on it any more
}

// renderFailed is the `error` that ends a subscription whose event could
// not be rendered (the render panicked outside a resolver, or yielded
// nothing): skipping the event silently would leave the client a gap it
// cannot see; ended, it subscribes again and catches up.
var renderFailed = []byte(`[{"message":"internal server error: an event could not be sent; subscribe again and catch up with changes(since:)","extensions":{"code":"` + graph.CodeInternal + `"}}]`)

// fail ends the subscription with renderFailed (the writer calls it).
func (s *wsSub) fail() {
	c := s.c
	c.mu.Lock()
	if s.done {
		c.mu.Unlock()
		return
	}
	s.done, s.stopped = true, true
	if c.subs[s.id] == s {
		delete(c.subs, s.id)
	}
	hub := s.hub
	c.queueLocked(wsOut{msg: message(s.id, wsError, renderFailed)})
	c.mu.Unlock()
	s.cancel()
	if hub != nil {
		hub.Close()
	}
}

// Dropped ends the subscription without a `complete`: its connection is
// about to be closed (1008, 4403), and a client that saw it completed would
// not subscribe again when it reconnects.
func (s *wsSub) Dropped() {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.done {
		return
	}
	s.done, s.stopped = true, true
	if c.subs[s.id] == s {
		delete(c.subs, s.id)
	}
	s.cancel()
}

// render is the event's `next` message for this subscription after its id
// (nextTail), made once per payload key for all the event's subscribers on
// this instance.
func (s *wsSub) render(ev *store.Event, shared *live.Shared) []byte {
	type payloadKey struct {
		event *store.Event
		key   string
	}
	b, _ := shared.Once(payloadKey{ev, s.key}, func() (payload any) {
		defer func() {
			if r := recover(); r != nil { // the executor recovers resolvers; this is the rest
				s.c.t.l.log.Error("live updates: rendering an event failed", "group", ev.GroupID, "seq", ev.Seq, "panic", r)
				payload = []byte(nil)
			}
		}()
		// Not this subscriber's context: others wait for the result, so it
		// must not end when this one goes away, and the payload is theirs
		// too, so its errors carry no one's request id (the log lines of
		// its render carry the event's group and sequence instead).
		ctx := graph.WithRequestID(context.WithoutCancel(s.ctx), "")
		ctx, cancel := context.WithTimeout(graph.ForEvent(ctx, ev, shared), renderTimeout)
		defer cancel()
		responses, ctx := s.c.exec.DispatchOperation(ctx, s.op)
		resp := responses(ctx)
		if resp == nil {
			return []byte(nil)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			panic(err)
		}
		return nextTail(b)
	}).([]byte)
	return b
}

// nextTail is a `next` message after its id: every subscriber with the
// payload key sends it, each with its own id before it (appendNext).
func nextTail(payload []byte) []byte {
	b := make([]byte, 0, len(payload)+32)
	b = append(b, `,"type":"`+wsNext+`","payload":`...)
	b = append(b, payload...)
	return append(b, '}')
}

// appendNext appends the `next` message of the operation id with a
// message tail made by nextTail.
func appendNext(b []byte, id string, tail []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, id)
	return append(b, tail...)
}

// appendJSONString appends s as a JSON string; an id is mostly plain ASCII
// (a number, a UUID), copied as it is.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// message is an outgoing message with an encoded payload.
func message(id, typ string, payload []byte) []byte {
	idJSON, _ := json.Marshal(id)
	b := make([]byte, 0, len(payload)+len(id)+40)
	b = append(b, `{"id":`...)
	b = append(b, idJSON...)
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	b = append(b, '"')
	if payload != nil {
		b = append(b, `,"payload":`...)
		b = append(b, payload...)
	}
	return append(b, '}')
}

// send queues a message.
func (c *wsConn) send(msg []byte) {
	c.mu.Lock()
	c.queueLocked(wsOut{msg: msg})
	c.mu.Unlock()
}

// queueLocked queues a message for the writer; c.mu is held.
func (c *wsConn) queueLocked(o wsOut) {
	if c.ended {
		return
	}
	if o.msg != nil && !o.ping {
		if c.queued >= maxQueuedOutMessages {
			// A client that sends and never reads: treat it as a slow consumer.
			c.closeLocked(dropCode(live.ErrSlowConsumer))
			return
		}
		c.queued++
	}
	c.out = append(c.out, o)
	c.wakeWriter()
}

// wakeWriter starts a writer, unless one is running; c.mu is held. A
// connection with nothing to send has no writer: an idle connection costs
// one goroutine, its reader.
func (c *wsConn) wakeWriter() {
	if c.writing || c.ended {
		return
	}
	c.writing = true
	c.writer.Add(1)
	go c.writeLoop()
}

// closeWith has the writer close the connection with the code and reason,
// before anything else still queued.
func (c *wsConn) closeWith(code int, reason string) {
	c.mu.Lock()
	c.closeLocked(code, reason)
	c.mu.Unlock()
}

func (c *wsConn) closeLocked(code int, reason string) {
	if c.closing == nil && !c.ended {
		c.closing = &wsClose{code: code, reason: reason}
		c.wakeWriter()
	}
}

// closeNow closes a connection that has no writer yet.
func (c *wsConn) closeNow(code websocket.StatusCode, reason string) {
	_ = c.ws.Close(code, reason)
}

// write sends one message; a write that takes longer than wsWriteTimeout
// fails (the connection's write deadline, set by frameWriter: cheaper than
// a context's timer per message when thousands are written at once).
func (c *wsConn) write(ctx context.Context, msg []byte) error {
	return c.ws.Write(ctx, websocket.MessageText, msg)
}

// writeEvent sends b[wsFrameHeaderRoom:], an event's `next` message, as
// one text frame: its header is put in the room before it and the whole
// frame goes to the socket in one write, past coder/websocket's Write (two
// channel locks, its header and its payload copied through its buffered
// writer into frameWriter's: a fifth of the writer's time when an event
// goes to thousands). Frames cannot interleave: the socket takes each
// write whole (net's write lock), and coder/websocket writes its own frames
// (pongs, the close) whole too (frameWriter). Without the socket it goes
// through ws.
func (c *wsConn) writeEvent(b []byte) error {
	if c.conn == nil {
		return c.write(context.Background(), b[wsFrameHeaderRoom:])
	}
	frame := textFrame(b)
	_ = c.conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	_, err := c.conn.Write(frame)
	return err
}

// ping sends the client a ping every LIVE_PING_INTERVAL (from a timer: no
// goroutine waits for it), and closes a connection that has sent nothing
// for two.
func (c *wsConn) ping() {
	interval := c.t.l.limits.PingInterval
	if time.Since(time.Unix(0, c.alive.Load())) > 2*interval {
		noteLive(c.ctx, "", "server: no pong")
		_ = c.ws.CloseNow() // a dead peer answers no close handshake; the reader ends
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.queueLocked(wsOut{msg: []byte(`{"type":"ping"}`), ping: true})
	c.pinger.Reset(interval)
}

// writeLoop sends what is queued, then ends; the close, when one is asked
// for, goes before anything else.
func (c *wsConn) writeLoop() {
	defer c.writer.Done()
	for {
		c.mu.Lock()
		out, closing := c.out, c.closing
		c.out, c.queued = nil, 0
		if len(out) == 0 && closing == nil || c.ended {
			c.writing = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if closing != nil {
			releaseOuts(out)
			c.gate.Lock()
			_ = c.ws.Close(websocket.StatusCode(closing.code), closing.reason)
			c.gate.Unlock()
			c.mu.Lock()
			c.ended, c.writing = true, false
			c.mu.Unlock()
			return
		}
		for i, o := range out {
			if err := c.writeOut(o); err != nil {
				releaseOuts(out[i+1:])
				_ = c.ws.CloseNow()
				c.mu.Lock()
				c.ended, c.writing = true, false
				c.mu.Unlock()
				return
			}
		}
	}
}

// writeOut sends one queued message or a subscription's events.
func (c *wsConn) writeOut(o wsOut) error {
	if o.msg != nil {
		return c.write(context.Background(), o.msg)
	}
	s := o.sub
	defer o.shared.Release()
	for i := range o.events {
		c.mu.Lock()
		s.pending--
		stopped := s.stopped
		c.mu.Unlock()
		if stopped {
			continue
		}
		tail := s.render(&o.events[i], o.shared)
		if tail == nil {
			s.fail() // its later events are not sent either
			continue
		}
		buf := wsMessagePool.Get().(*[]byte)
		msg := appendNext(append((*buf)[:0], make([]byte, wsFrameHeaderRoom)...), s.id, tail)
		err := c.writeEvent(msg)
		if cap(msg) <= wsPooledBuffer {
			*buf = msg[:0]
			wsMessagePool.Put(buf)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// releaseOuts releases the batches of events queued in outs that will not
// be written (see live.Shared.Release).
func releaseOuts(outs []wsOut) {
	for _, o := range outs {
		if o.shared != nil {
			o.shared.Release()
		}
	}
}

// liveBuffer is the events a subscription of hub may have waiting.
func liveBuffer(hub *live.Hub) int {
	if hub == nil {
		return live.DefaultBuffer
	}
	return hub.Buffer()
}
