// Package httpapi is the API's HTTP face: the GraphQL endpoint with its
// middleware (body limit, CORS, authentication, per-request loaders), the
// Playground and the health check.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/exchange/export"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/graph/limits"
	"github.com/fracti/api/live"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/playground"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/rates"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/fracti/api/tonverify"
	"github.com/rs/cors"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Config is what the HTTP handler needs.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
	// BotToken validates Telegram Mini App init data (its hash).
	BotToken string
	// BotID, without BotToken, validates init data by Telegram's Ed25519
	// signature for this bot; neither set disables `tma` sign-in.
	BotID int64
	// TelegramTestEnvironment checks that signature with the key of
	// Telegram's test environment instead of production's.
	TelegramTestEnvironment bool
	// AuthMaxAge is how long init data stays valid after its auth_date (default 24h).
	AuthMaxAge time.Duration
	// CORSOrigins may call the API from a browser ("*" for any).
	CORSOrigins []string
	// MaxBodyBytes limits a request body (default 1 MiB).
	MaxBodyBytes int64
	// MaxUploadBytes limits a multipart request (an upload; default DefaultMaxUploadBytes).
	MaxUploadBytes int64
	// MaxUploads is how many multipart requests are read at once (default
	// DefaultMaxUploads); more are refused with 503.
	MaxUploads int
	// Playground serves GraphiQL at / (with its assets under
	// playground.AssetsPath and the icon at /favicon.ico).
	Playground bool
	// PlaygroundHeadersFromLink lets a link fill the Playground's Headers
	// tab (playground.Link): only for a server on a local DynamoDB.
	PlaygroundHeadersFromLink bool
	// LoaderWait is the dataloaders' batch window (default loaders.DefaultWait).
	LoaderWait time.Duration
	// Limits bound what one GraphQL operation may ask for; zero fields take limits.Defaults.
	Limits limits.Config
	// MaxDynamoDBCalls is how many DynamoDB calls one request may make (default DefaultMaxDynamoDBCalls).
	MaxDynamoDBCalls int
	// TokenCacheTTL is how long access token lookups are remembered
	// (0 means DefaultTokenCacheTTL; negative: not at all). A token revoked on
	// another instance keeps working here for up to this long.
	TokenCacheTTL time.Duration
	// Now overrides the clock of init data validation and of access token
	// expiry (tests).
	Now func() time.Time
	// InviteLinks names the Telegram bot and Mini App of invite links.
	InviteLinks graph.InviteLinks
	// Quota limits each user's operations per day and requests without
	// credentials per client address; the zero value limits nothing.
	Quota quota.Limits
	// Live hands out subscriptions (nil: subscriptions are refused as unavailable).
	Live *live.Hub
	// LiveLimits bound live connections; zero fields take their defaults.
	LiveLimits LiveLimits
	// LiveDone ends every live connection when it is done (the server is
	// shutting down); nil: never.
	LiveDone context.Context
	// TrustedDocuments, when set, are the only operations the server runs
	// (automatic persisted queries are off then).
	TrustedDocuments *graph.TrustedDocuments
	// DisableIntrospection refuses __schema and __type.
	DisableIntrospection bool
	// DisableSuggestions leaves "Did you mean …?" out of validation errors.
	DisableSuggestions bool
	// GenericMarshal turns the executor's fast path for hot lists off
	// (FAST_MARSHAL=false).
	GenericMarshal bool
	// ClientIPHeader names a header a trusted proxy sets to the client's
	// address (such as X-Forwarded-For; its last address is used); empty:
	// the address of the connection.
	ClientIPHeader string
	// Metrics records requests, errors, loader batches and live
	// connections, and is served at /metrics unless MetricsElsewhere; nil:
	// no metrics. Its DynamoDB option belongs on Store's client.
	Metrics *metrics.Metrics
	// MetricsElsewhere keeps /metrics off this handler: the server serves
	// the metrics on a listener of their own.
	MetricsElsewhere bool
	// Rates gives the day's exchange rates for conversions (nil: none
	// configured; conversions then need their rate given).
	Rates *rates.Service
	// Bot is the Telegram Bot API client (nil: no bot token configured):
	// connectTelegramChat asks it about chats.
	Bot *telegram.Client
	// WebhookSecret turns on POST /telegram/webhook, which accepts only
	// updates carrying it in X-Telegram-Bot-Api-Secret-Token; "": off (404).
	WebhookSecret string
	// Reminders sends remindDebtors' messages (nil: no bot configured).
	Reminders graph.Reminders
	// TON checks TON payments on chain (submitSettlementTransaction).
	TON *tonverify.Verifier
	// Receipts attaches receipts and pictures in object storage, and opens
	// them for the zip export (nil: refused as without a bucket).
	Receipts *receipts.Service
}

// receiptFiles is what the zip export opens receipts with: nil without
// storage, where nothing could be uploaded.
func receiptFiles(r *receipts.Service) export.Objects {
	if !r.Configured() {
		return nil
	}
	return r
}

// DefaultTokenCacheTTL is how long access token lookups are remembered by default.
const DefaultTokenCacheTTL = 30 * time.Second

// DefaultMaxDynamoDBCalls is how many DynamoDB calls one request may make by
// default: a screen takes a handful, a page of 100 groups with a list each a
// hundred and some.
const DefaultMaxDynamoDBCalls = 250

// DefaultMaxBodyBytes is the default request body limit.
const DefaultMaxBodyBytes = 1 << 20

// requestTimeout caps one request, DynamoDB calls included.
const requestTimeout = 30 * time.Second

// New returns the complete HTTP handler:
//
//	/          GraphiQL Playground (when enabled; its assets under
//	           /playground/assets/, the icon at /favicon.ico)
//	/graphql   the GraphQL endpoint, with live subscriptions over WebSocket,
//	           server-sent events and multipart HTTP (see negotiate.go)
//	/export/groups/{id}.json and .csv  a group's data for its members (see export.go)
//	/export/me.json                    the signed-in person's own data (export_me.go)
//	/telegram/webhook  Telegram's updates (when WebhookSecret is set; see webhook.go)
//	/healthz   liveness: 200 while the process serves
//	/readyz    readiness: 200 when the table is reachable, 503 with the
//	           reason (also logged) when not
//	/metrics   Prometheus metrics (when Metrics is set and not MetricsElsewhere)
func New(cfg Config) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Log = slog.New(requestLog{cfg.Log.Handler()})
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxUploads <= 0 {
		cfg.MaxUploads = DefaultMaxUploads
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.LoaderWait <= 0 {
		cfg.LoaderWait = loaders.DefaultWait
	}
	if cfg.MaxDynamoDBCalls <= 0 {
		cfg.MaxDynamoDBCalls = DefaultMaxDynamoDBCalls
	}
	if cfg.TokenCacheTTL == 0 {
		cfg.TokenCacheTTL = DefaultTokenCacheTTL
	}
	authn := &auth.Authenticator{
		BotToken:        cfg.BotToken,
		BotID:           cfg.BotID,
		TestEnvironment: cfg.TelegramTestEnvironment,
		MaxAge:          cfg.AuthMaxAge,
		Tokens:          tokenLookup{cfg.Store},
		Users:           profileRecorder{cfg.Store},
		Now:             cfg.Now,
		TokenCacheTTL:   cfg.TokenCacheTTL,
	}
	meter := quota.New(cfg.Quota, usageCounters{cfg.Store}, cfg.Now)
	hooks := metricHooks(cfg.Metrics)
	gql := graph.NewHandler(&graph.Resolver{
		Store: cfg.Store, Log: cfg.Log, Tokens: authn, Now: cfg.Now, InviteLinks: cfg.InviteLinks, Quota: meter, Live: cfg.Live,
		Rates: cfg.Rates, Bot: cfg.Bot, Reminders: cfg.Reminders, TON: cfg.TON, Receipts: cfg.Receipts,
	},
		graph.HandlerConfig{Limits: cfg.Limits, LoaderWait: cfg.LoaderWait, Calls: cfg.MaxDynamoDBCalls,
			TrustedDocuments: cfg.TrustedDocuments, DisableIntrospection: cfg.DisableIntrospection, DisableSuggestions: cfg.DisableSuggestions,
			LoaderBatches: hooks.loaderBatches, ErrorCodes: hooks.errorCodes, GenericMarshal: cfg.GenericMarshal})
	liveT := newLiveTransports(cfg.LiveDone, cfg.CORSOrigins, authn, cfg.LiveLimits, cfg.Log, cfg.Metrics)
	plain := graphqlHTTP{log: cfg.Log, metrics: cfg.Metrics}
	gql.AddTransport(liveT.websocketServer(liveBuffer(cfg.Live)))
	gql.AddTransport(transport.Options{})
	gql.AddTransport(liveT.sse())
	gql.AddTransport(liveT.multipart(plain))
	gql.AddTransport(uploadTransport(cfg.MaxUploadBytes))
	gql.AddTransport(plain)
	if cfg.Live != nil {
		cfg.Metrics.CountSubscriptions(cfg.Live.Count)
		if cfg.Metrics != nil {
			cfg.Live.ObserveFanout(cfg.Metrics.ObserveLiveFanout)
		}
	}

	operations := withClientAddr(cfg.ClientIPHeader, authn.Middleware(loaders.Middleware(cfg.Store, cfg.LoaderWait, loaders.ObserveBatches(hooks.loaderBatches))(gql)))
	requests := withRequest(cfg.Log, cfg.MaxDynamoDBCalls, cfg.Metrics, limitBody(cfg.MaxBodyBytes, cfg.Metrics, operations))
	uploads := withRequest(cfg.Log, cfg.MaxDynamoDBCalls, cfg.Metrics, requirePreflight(cfg.Metrics, limitUploads(cfg.MaxUploads, cfg.Metrics, limitBody(cfg.MaxUploadBytes, cfg.Metrics, operations))))
	liveConns := withLiveLog(cfg.Log, limitBody(cfg.MaxBodyBytes, cfg.Metrics, withClientAddr(cfg.ClientIPHeader, authn.Middleware(liveT.handler(gql)))))
	mux := http.NewServeMux()
	negotiate := negotiator{maxBody: cfg.MaxBodyBytes, limits: cfg.Limits}
	mux.Handle("/graphql", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isMultipartForm(r) {
			uploads.ServeHTTP(w, r)
			return
		}
		s := streamNone
		if !isWebSocket(r) {
			if s = negotiate.streamFor(r); s == streamNone {
				requests.ServeHTTP(w, r)
				return
			}
		}
		ctx, end := withLiveEnd(r.Context())
		r = r.WithContext(withStream(ctx, s))
		release, ok := liveT.admit(w, r)
		if !ok {
			return
		}
		defer func() { end.after(release) }() // a WebSocket's slot is held until it ends
		liveConns.ServeHTTP(w, r)
	}))
	if cfg.WebhookSecret != "" {
		mux.Handle("POST "+WebhookPath, webhook{secret: cfg.WebhookSecret, store: cfg.Store, log: cfg.Log, maxBody: cfg.MaxBodyBytes})
	}
	// An export makes a Query per 100 items: no call budget (0), the request's deadline only.
	mux.Handle("GET "+ExportPath+"{file}", withRequest(cfg.Log, 0, cfg.Metrics, withClientAddr(cfg.ClientIPHeader, authn.Middleware(
		exportHandler{store: cfg.Store, log: cfg.Log, metrics: cfg.Metrics, meter: meter, now: cfg.Now, objects: receiptFiles(cfg.Receipts)}))))
	mux.Handle("GET "+ExportMePath, withRequest(cfg.Log, 0, cfg.Metrics, withClientAddr(cfg.ClientIPHeader, authn.Middleware(
		exportMeHandler{exportHandler{store: cfg.Store, log: cfg.Log, metrics: cfg.Metrics, meter: meter, now: cfg.Now}}))))
	mux.Handle("GET /healthz", http.HandlerFunc(alive))
	mux.Handle("GET /readyz", ready(cfg.Store, cfg.Log))
	if cfg.Playground {
		playground.Register(mux, playground.Options{Title: "Fracti API", Endpoint: "/graphql", HeadersFromLink: cfg.PlaygroundHeadersFromLink})
	}
	if cfg.Metrics != nil && !cfg.MetricsElsewhere {
		mux.Handle("GET /metrics", cfg.Metrics.Handler())
	}
	if len(cfg.CORSOrigins) == 0 {
		// No origin may call from a browser (rs/cors would allow every one).
		return mux
	}
	return cors.New(cors.Options{
		AllowedOrigins: cfg.CORSOrigins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodOptions},
		AllowedHeaders: []string{"Authorization", "Content-Type", "Accept", "Apollo-Require-Preflight",
			"Apollographql-Client-Name", "Apollographql-Client-Version", "X-Apollo-Operation-Name", "GraphQL-Preflight"},
		ExposedHeaders: []string{requestIDHeader, "Retry-After", "Content-Disposition"},
		MaxAge:         600,
	}).Handler(mux)
}

// metricHookFuncs are the functions other packages report to; nil without metrics.
type metricHookFuncs struct {
	loaderBatches loaders.BatchObserver
	errorCodes    func(code string)
}

func metricHooks(m *metrics.Metrics) metricHookFuncs {
	if m == nil {
		return metricHookFuncs{}
	}
	return metricHookFuncs{loaderBatches: m.ObserveLoaderBatch, errorCodes: m.CountError}
}

// limitBody refuses bodies over max bytes: at once when the declared length
// says so, and while reading otherwise.
func limitBody(max int64, m *metrics.Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			writeError(r.Context(), w, m, http.StatusRequestEntityTooLarge, graph.CodeBadUserInput,
				"request body too large: the limit is "+strconv.FormatInt(max, 10)+" bytes")
			return
		}
		// A request without a body (a WebSocket's handshake) is left as it
		// is: a MaxBytesReader holds the ResponseWriter, and with it
		// net/http's 8 KiB of buffers, for as long as anything keeps the
		// request (a WebSocket's context does, long after its handler).
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, max)
		}
		next.ServeHTTP(w, r)
	})
}

// readyTimeout bounds the readiness check's DescribeTable.
const readyTimeout = 3 * time.Second

// alive answers the liveness probe: the process is up and serving. It reads
// nothing, so that a DynamoDB outage does not get healthy instances
// restarted.
func alive(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
}

// ready answers the readiness probe: 200 when the table is reachable and
// active, else 503 with the reason, which is logged too.
func ready(s *store.Store, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		if err := s.Ping(ctx); err != nil {
			log.WarnContext(ctx, "not ready", "table", s.Table(), "reason", err.Error())
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"status": "unavailable", "table": s.Table(), "reason": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ready", "table": s.Table()})
	})
}

// writeError answers outside GraphQL execution in GraphQL's error shape.
func writeError(ctx context.Context, w http.ResponseWriter, m *metrics.Metrics, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	writeRequestError(ctx, w, m, status, code, msg)
}

// writeRequestError answers with one error made here, which the GraphQL
// executor (whose error presenter counts the errors it returns) never saw:
// its code is counted here.
func writeRequestError(ctx context.Context, w http.ResponseWriter, m *metrics.Metrics, status int, code, msg string) {
	m.CountError(code)
	writeErrors(ctx, w, status, gqlerror.List{{Message: msg, Extensions: map[string]any{"code": code}}})
}

// withClientAddr records the client's address for the rate limit without
// credentials: the connection's, or the last one a trusted proxy's header
// lists (the address the proxy itself saw).
func withClientAddr(header string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			addr = r.RemoteAddr
		}
		if header != "" {
			if v := r.Header.Values(header); len(v) > 0 {
				list := strings.Split(v[len(v)-1], ",")
				if last := strings.TrimSpace(list[len(list)-1]); last != "" {
					addr = last
				}
			}
		}
		next.ServeHTTP(w, r.WithContext(quota.WithClientAddr(r.Context(), addr)))
	})
}

// usageCounters keeps the quota's daily counters in the store.
type usageCounters struct{ s *store.Store }

func (u usageCounters) AddUsage(ctx context.Context, userID, day string, reads, writes int64) (int64, int64, error) {
	got, err := u.s.AddUsage(ctx, userID, day, reads, writes)
	return got.Reads, got.Writes, err
}

func (u usageCounters) GetUsage(ctx context.Context, userID, day string) (int64, int64, error) {
	got, err := u.s.GetUsage(ctx, userID, day)
	return got.Reads, got.Writes, err
}

// tokenLookup lets the authenticator find personal access tokens in the store.
type tokenLookup struct{ s *store.Store }

func (t tokenLookup) LookupToken(ctx context.Context, hash string) (auth.TokenInfo, error) {
	tok, err := t.s.LookupToken(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return auth.TokenInfo{}, auth.ErrTokenUnknown
	}
	if err != nil {
		return auth.TokenInfo{}, err
	}
	id, err := strconv.ParseInt(tok.UserID, 10, 64)
	if err != nil {
		return auth.TokenInfo{}, fmt.Errorf("token of user %q: %w", tok.UserID, err)
	}
	return auth.TokenInfo{
		Identity: auth.Identity{UserID: id, Name: tok.Name, Username: tok.Username, Method: auth.MethodToken,
			Scopes: auth.ScopesOf(tok.Scopes), ExpiresAt: tok.ExpiresAt},
		LastUsedAt: tok.LastUsedAt,
	}, nil
}

func (t tokenLookup) TouchToken(ctx context.Context, hash, day string) error {
	_, err := t.s.TouchToken(ctx, hash, day)
	return err
}

// profileRecorder keeps the profiles of users who sign in with init data.
type profileRecorder struct{ s *store.Store }

func (p profileRecorder) RecordTelegramUser(ctx context.Context, u auth.TelegramUser) error {
	return p.s.PutUserProfile(ctx, store.UserProfile{
		UserID: strconv.FormatInt(u.ID, 10), Name: u.DisplayName(), Username: u.Username, PhotoURL: u.PhotoURL,
	})
}
