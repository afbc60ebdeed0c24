package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/live"
	"github.com/fracti/api/metrics"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Live subscriptions: WebSocket (graphql-transport-ws) and server-sent events
// at /graphql. A live connection outlasts the request deadline; it has its
// own limits instead.

// LiveLimits bound what live connections may hold.
type LiveLimits struct {
	// ConnectionsPerUser bounds one user's live connections to this
	// instance (default DefaultConnectionsPerUser).
	ConnectionsPerUser int
	// SubscriptionsPerConnection bounds the subscriptions one WebSocket
	// carries at once (default DefaultSubscriptionsPerConnection).
	SubscriptionsPerConnection int
	// PingInterval is how often the server pings a WebSocket; one that has
	// not answered within two intervals is closed (default DefaultPingInterval).
	PingInterval time.Duration
	// MaxMessageBytes bounds a message a client sends over a WebSocket
	// (default DefaultMaxMessageBytes).
	MaxMessageBytes int64
	// MaxConnections bounds the live connections this instance holds at
	// once, over every transport; past it a new one is refused with 503
	// (default DefaultMaxConnections()).
	MaxConnections int
}

// Live connection defaults.
const (
	DefaultConnectionsPerUser         = 10
	DefaultSubscriptionsPerConnection = 20
	DefaultPingInterval               = 30 * time.Second
	DefaultMaxMessageBytes            = 64 << 10
)

// graphqlTransportWS is the subprotocol of graphql-ws, the library.
const graphqlTransportWS = "graphql-transport-ws"

// initTimeout is how long a WebSocket may take to send connection_init.
const initTimeout = 10 * time.Second

// Close codes of the graphql-transport-ws protocol and RFC 6455 that the
// server closes live connections with.
const (
	closeUnauthorized    = 4401 // connection_init carried no credentials
	closeForbidden       = 4403 // the credentials were refused, or no longer hold
	closeTooManyRequests = 4429 // too many connections for this user
	closePolicyViolation = 1008 // a slow consumer
	closeTryAgainLater   = 1013 // credentials could not be checked right now
)

func (c *LiveLimits) defaults() {
	if c.ConnectionsPerUser <= 0 {
		c.ConnectionsPerUser = DefaultConnectionsPerUser
	}
	if c.SubscriptionsPerConnection <= 0 {
		c.SubscriptionsPerConnection = DefaultSubscriptionsPerConnection
	}
	if c.PingInterval <= 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections()
	}
}

// liveTransports carries what live connections share on this instance.
type liveTransports struct {
	done    context.Context // live connections end when it does
	accept  socketAccepter
	authn   *auth.Authenticator
	limits  LiveLimits
	users   *live.UserConnections
	held    connectionCap
	log     *slog.Logger
	metrics *metrics.Metrics
}

func newLiveTransports(done context.Context, corsOrigins []string, authn *auth.Authenticator, limits LiveLimits, log *slog.Logger, m *metrics.Metrics) *liveTransports {
	limits.defaults()
	if done == nil {
		done = context.Background()
	}
	accept := newSocketAccepter(corsOrigins)
	accept.metrics = m
	return &liveTransports{done: done, accept: accept, authn: authn, limits: limits, users: &live.UserConnections{Max: limits.ConnectionsPerUser},
		held: connectionCap{max: int64(limits.MaxConnections)}, log: log, metrics: m}
}

// websocket is the graphql-transport-ws transport (and the older
// graphql-ws one gqlgen also speaks).
func (l *liveTransports) websocket() transport.Websocket {
	limit := l.limits.MaxMessageBytes
	return transport.Websocket{
		Implementation:        l.accept,
		InitFunc:              l.init,
		InitTimeout:           initTimeout,
		CloseFunc:             func(ctx context.Context, _ int) { releaseFrom(ctx)() },
		PingPongInterval:      l.limits.PingInterval,
		KeepAlivePingInterval: l.limits.PingInterval,
		PayloadReadLimit:      &limit,
	}
}

// init checks connection_init's credentials for gqlgen's transport (the
// legacy subprotocol), as admit does for ours.
func (l *liveTransports) init(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	ctx, code, reason := l.admitInit(ctx, payload.Authorization(), socketFrom(ctx).close)
	if code != 0 {
		return transport.AppendCloseReason(transport.WithWebsocketCloseCode(ctx, code), reason), nil, errors.New(reason)
	}
	return ctx, nil, nil
}

// admitInit checks connection_init's Authorization exactly as an HTTP
// request's header, and gives the connection its identity and limits;
// closeWith closes the socket when the hub drops the connection. A refusal
// is the close code and reason to close with.
func (l *liveTransports) admitInit(ctx context.Context, header string, closeWith func(code int, reason string)) (_ context.Context, code int, reason string) {
	refuse := func(code int, reason string) (context.Context, int, string) {
		reason = closeReason(reason)
		noteLive(ctx, "", "server: "+reason)
		return ctx, code, reason
	}
	if header == "" {
		return refuse(closeUnauthorized, `Unauthorized: send {"Authorization": "tma <initData>"} or {"Authorization": "Bearer <token>"} in connection_init`)
	}
	id, err := l.authn.Authenticate(ctx, header)
	switch {
	case errors.Is(err, auth.ErrAuthUnavailable):
		l.log.Error("live connection: credentials could not be checked", "err", err)
		return refuse(closeTryAgainLater, "authentication is temporarily unavailable: try again")
	case err != nil:
		return refuse(closeForbidden, "Forbidden: "+err.Error())
	}
	noteLive(ctx, id.UserKey(), "")
	release, err := l.users.Open(id.UserKey())
	if err != nil {
		return refuse(closeTooManyRequests, err.Error())
	}
	conn := &live.Connection{
		MaxSubscriptions: l.limits.SubscriptionsPerConnection,
		Allowed:          l.stillAllowed(header),
		Drop: func(reason error) {
			code, msg := dropCode(reason)
			noteLive(ctx, "", "server: "+msg)
			l.log.InfoContext(ctx, "live connection dropped", "user", id.UserKey(), "reason", msg)
			closeWith(code, msg)
		},
	}
	ctx = auth.WithIdentity(ctx, id)
	ctx = live.WithConnection(ctx, conn)
	return withRelease(ctx, release), 0, ""
}

// stillAllowed checks the connection's credential again before an event is
// delivered: a token revoked or expired since, or init data past its age,
// ends the connection. A check that cannot run (the table unreachable)
// does not: the credential was good and nothing says otherwise.
func (l *liveTransports) stillAllowed(header string) func() error {
	check := l.authn.Recheck(header)
	return func() error {
		ctx := &lazyTimeout{Context: context.Background(), deadline: time.Now().Add(5 * time.Second)}
		defer ctx.stop()
		err := check(ctx)
		if errors.Is(err, auth.ErrAuthUnavailable) {
			return nil
		}
		return err
	}
}

// lazyTimeout is a context with a deadline whose timer is made only once
// something waits on it (Done, Err): the check before each delivery is
// nearly always answered from the token cache, which waits on nothing, and
// a timer per subscriber was a tenth of the CPU of one event's fan-out to
// thousands.
type lazyTimeout struct {
	context.Context // the parent
	deadline        time.Time
	once            sync.Once
	made            context.Context
	cancel          context.CancelFunc
}

// timed is the context with its timer, made on first use.
func (c *lazyTimeout) timed() context.Context {
	c.once.Do(func() { c.made, c.cancel = context.WithDeadline(c.Context, c.deadline) })
	return c.made
}

func (c *lazyTimeout) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *lazyTimeout) Done() <-chan struct{}       { return c.timed().Done() }
func (c *lazyTimeout) Err() error                  { return c.timed().Err() }

// stop releases the timer, if one was made; after it the context is
// cancelled, as a context.WithTimeout's after its cancel.
func (c *lazyTimeout) stop() {
	c.once.Do(func() { c.made = cancelledContext })
	if c.cancel != nil {
		c.cancel()
	}
}

// cancelledContext is a lazyTimeout's once stopped before its timer was made.
var cancelledContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// errShuttingDown ends every live connection when the server stops.
var errShuttingDown = errors.New("the server is shutting down")

// dropError is what a stream the server ends says about why, in an error
// with a code: what a WebSocket's close says.
func dropError(reason error) *gqlerror.Error {
	code, msg := graph.CodeUnavailable, reason.Error()+": reconnect"
	if !errors.Is(reason, errShuttingDown) {
		var close int
		if close, msg = dropCode(reason); close == closeForbidden {
			code = graph.CodeForbidden
		}
	}
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": code}}
}

// dropCode is the close code and reason for a connection the hub drops.
func dropCode(reason error) (int, string) {
	if errors.Is(reason, live.ErrSlowConsumer) {
		return closePolicyViolation, closeReason("slow consumer: events were not read fast enough; reconnect and catch up with Group.changes(since:)")
	}
	return closeForbidden, closeReason("Forbidden: " + reason.Error())
}

// closeReason fits a close reason in the 123 bytes a close frame allows.
func closeReason(s string) string {
	const limit = 123
	if len(s) <= limit {
		return s
	}
	s = s[:limit]
	// Do not cut a character in two.
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// sse is server-sent events (graphql-sse's distinct connections mode): one
// POST per operation, authenticated by its Authorization header, for the
// requests the negotiation sent here.
func (l *liveTransports) sse() graphql.Transport {
	return negotiated{transport.SSE{KeepAlivePingInterval: l.limits.PingInterval}, streamSSE}
}

// multipart is Apollo's multipart subscriptions, for the requests the
// negotiation sent here.
func (l *liveTransports) multipart(json graphqlHTTP) graphql.Transport {
	return multipartSubscriptions{json: json, heartbeat: l.limits.PingInterval, metrics: l.metrics}
}

// negotiated is a transport that takes the requests the negotiation chose
// its stream for, and no others.
type negotiated struct {
	graphql.Transport
	stream stream
}

func (t negotiated) Supports(r *http.Request) bool { return streamOf(r.Context()) == t.stream }

// handler serves live connections: no request deadline and no per-request
// call budget (each event has its own); an SSE request takes one of its
// user's connection slots and ends when the hub drops it.
func (l *liveTransports) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server's read and write timeouts are for requests, not for
		// connections that stay open.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		base := r.Context()
		if isWebSocket(r) {
			// net/http cancels the request's context when the handler
			// returns, which a WebSocket outlives (see liveEnd).
			base = context.WithoutCancel(base)
		}
		ctx, cancel := context.WithCancelCause(base)
		stop := context.AfterFunc(l.done, func() {
			noteLive(ctx, "", "server: shutting down")
			cancel(errShuttingDown)
		})
		if isWebSocket(r) {
			sock := &socket{}
			defer liveEndFrom(ctx).after(func() {
				stop()
				cancel(nil)
				sock.ended()
			})
			next.ServeHTTP(w, r.WithContext(withSocket(ctx, sock)))
			return
		}
		defer cancel(nil)
		defer stop()
		id, ok := auth.FromContext(ctx)
		if !ok {
			next.ServeHTTP(w, r.WithContext(ctx)) // the GraphQL layer refuses it with UNAUTHENTICATED
			return
		}
		noteLive(ctx, id.UserKey(), "")
		release, err := l.users.Open(id.UserKey())
		if err != nil {
			noteLive(ctx, "", "server: "+err.Error())
			writeError(r.Context(), w, l.metrics, http.StatusTooManyRequests, "RATE_LIMITED", err.Error())
			return
		}
		defer release()
		defer l.metrics.LiveConnectionOpened(transportName(r))()
		conn := &live.Connection{
			MaxSubscriptions: 1,
			Allowed:          l.stillAllowed(r.Header.Get("Authorization")),
			Drop: func(reason error) {
				_, msg := dropCode(reason)
				noteLive(ctx, "", "server: "+msg)
				cancel(reason)
			},
		}
		next.ServeHTTP(w, r.WithContext(live.WithConnection(ctx, conn)))
	})
}

// isWebSocket reports whether r asks to become a WebSocket.
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// transportName is the transport of a live connection, as the metrics and
// the log name it.
func transportName(r *http.Request) string {
	switch {
	case isWebSocket(r):
		return metrics.TransportWebSocket
	case streamOf(r.Context()) == streamMultipart:
		return metrics.TransportMultipart
	}
	return metrics.TransportSSE
}

// socket is the WebSocket of one connection, kept so that the hub can close
// it with a reason (gqlgen's transport closes only for its own reasons).
type socket struct {
	mu      sync.Mutex
	closeFn func(code int, reason string) // sends a close frame
	closed  func()                        // ends the connection's count in the metrics
}

// set records how to close the accepted socket, and how to end its count.
func (s *socket) set(closeFn func(code int, reason string), closed func()) {
	s.mu.Lock()
	s.closeFn, s.closed = closeFn, closed
	s.mu.Unlock()
}

// ended is called once the connection is over.
func (s *socket) ended() {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed != nil {
		closed()
	}
}

// close sends a close frame with the code and reason; the transport's read
// loop then ends the connection and its subscriptions.
func (s *socket) close(code int, reason string) {
	s.mu.Lock()
	c := s.closeFn
	s.mu.Unlock()
	if c != nil {
		c(code, reason)
	}
}

type socketKey struct{}

func withSocket(ctx context.Context, s *socket) context.Context {
	return context.WithValue(ctx, socketKey{}, s)
}

func socketFrom(ctx context.Context) *socket {
	s, _ := ctx.Value(socketKey{}).(*socket)
	if s == nil {
		return &socket{}
	}
	return s
}

// socketAccepter accepts WebSockets with gqlgen's default implementation
// and records each on its request's socket.
type socketAccepter struct {
	impl    transport.CoderWebsocketImplementation
	metrics *metrics.Metrics // counts the sockets accepted until they end
}

// newSocketAccepter lets browsers open WebSockets from the origins CORS
// allows ("*": any), as well as from the server's own; clients that send no
// Origin (apps, scripts) are always let in. The credential travels in
// connection_init, never in a cookie, so an origin cannot borrow anyone's.
func newSocketAccepter(corsOrigins []string) socketAccepter {
	var a socketAccepter
	for _, o := range corsOrigins {
		if o == "*" {
			a.impl.AcceptOptions.InsecureSkipVerify = true
			continue
		}
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			a.impl.AcceptOptions.OriginPatterns = append(a.impl.AcceptOptions.OriginPatterns, u.Host)
		}
	}
	return a
}

func (a socketAccepter) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := a.impl.Accept(w, r, opts)
	if err == nil && c.Subprotocol() == graphqlTransportWS {
		c = newRefusingConn(c)
	}
	// Only a socket the live handler made sees its end, and so is counted.
	if s, _ := r.Context().Value(socketKey{}).(*socket); err == nil && s != nil {
		s.set(func(code int, reason string) { _ = c.WriteClose(code, reason) }, a.metrics.LiveConnectionOpened(metrics.TransportWebSocket))
	}
	return c, err
}

type releaseKey struct{}

func withRelease(ctx context.Context, release func()) context.Context {
	return context.WithValue(ctx, releaseKey{}, release)
}

// releaseFrom is the connection slot release of ctx, or a no-op.
func releaseFrom(ctx context.Context) func() {
	if f, ok := ctx.Value(releaseKey{}).(func()); ok {
		return f
	}
	return func() {}
}
