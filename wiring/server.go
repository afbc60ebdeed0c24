// Package wiring builds the server from its configuration: the store, the
// HTTP handler (with its loaders and executor), live updates, the
// notifier, the stream's readers and the scheduled jobs, each from its own
// section of config.Config; and it runs the serve lifecycle, from
// readiness to a graceful shutdown in order. The commands use it; it uses
// the domain packages, and none of them uses it.
package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
)

// shutdownGrace is how long requests in flight, the running job and the
// stream's readers have to finish once a shutdown starts.
const shutdownGrace = 15 * time.Second

// Server is the API server built from its configuration, ready to Run.
type Server struct {
	cfg     config.Config
	log     *slog.Logger
	store   *store.Store
	metrics *metrics.Metrics // nil: no metrics
	trusted *graph.TrustedDocuments
	// receipts are receipts and pictures (unavailable without a bucket).
	receipts *receipts.Service
}

// New builds the server: it sets the collector's defaults, loads the
// trusted documents (a manifest that does not fit the schema stops the
// server before it serves anything) and opens the store (creating the
// table on a local engine). Nothing runs until Run.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*Server, error) {
	applyGC(cfg.GC, log)
	srv := &Server{cfg: cfg, log: log}
	if path := cfg.GraphQL.TrustedDocuments; path != "" {
		var err error
		if srv.trusted, err = graph.LoadTrustedDocuments(path); err != nil {
			return nil, fmt.Errorf("TRUSTED_DOCUMENTS: %w", err)
		}
		log.Info("running only trusted documents", "path", path, "operations", srv.trusted.Len())
	}
	if cfg.Metrics.On {
		srv.metrics = metrics.New()
	}
	var err error
	if srv.store, err = OpenStore(ctx, cfg.Store, log, srv.metrics.DynamoDB()); err != nil {
		return nil, err
	}
	if srv.receipts, err = Receipts(cfg, srv.store, log); err != nil {
		return nil, err
	}
	if !cfg.Store.CursorSecretSet {
		log.Warn("CURSOR_SECRET is not set: using a random one, so pagination cursors die with this process; set it in production")
	}
	return srv, nil
}

// Store is the store the server serves from.
func (srv *Server) Store() *store.Store { return srv.store }

// Run starts live updates, the notifier (NOTIFY), the stream's readers and
// the jobs, and serves HTTP (and the metrics on a listener of their own,
// METRICS_ADDR) until ctx ends or a listener fails. Then it shuts down in
// order: live connections end at once; requests in flight finish within
// the grace; no job starts, and the one running may finish; the stream's
// readers release their leases; the metrics are scraped until the API has
// stopped.
func (srv *Server) Run(ctx context.Context) error {
	cfg, log, s, m := srv.cfg, srv.log, srv.store, srv.metrics
	liveCtx, endLive := context.WithCancel(context.WithoutCancel(ctx))
	defer endLive()
	hub, delivery, err := startLive(liveCtx, cfg.Live, cfg.Stream, cfg.Store, s, log, m)
	if err != nil {
		return err
	}
	bot := TelegramBot(cfg.Telegram) // one Bot API client for the resolvers, the webhook and the notifier
	notifier := Notifier(cfg.Notify, cfg.Telegram, s, bot, log)
	if cfg.Notify.On && notifier == nil {
		log.Warn("NOTIFY=true but TELEGRAM_BOT_TOKEN is not set: nothing is sent to Telegram")
	}
	// This instance runs the notifier with NOTIFY; remindDebtors sends through it either way.
	var notifierOn *notify.Notifier
	if cfg.Notify.On {
		notifierOn = notifier
	}
	waitStream, err := startStream(liveCtx, cfg.Stream, cfg.Store, s, log, m, notifierOn, delivery)
	if err != nil {
		return err
	}
	ton := TONVerifier(cfg.TON, s, log)
	jobs := startJobs(cfg.Recurring, cfg.Purge, cfg.TON, cfg.Notify, s, srv.receipts, log, m, notifierOn, notifier, ton)
	logSignIn(cfg.Telegram, log)
	api := &http.Server{
		Addr: ":" + cfg.Server.Port,
		Handler: httpapi.New(httpapi.Config{
			Store: s, Log: log, BotToken: cfg.Telegram.BotToken, AuthMaxAge: cfg.Auth.MaxAge,
			BotID: cfg.Telegram.BotID, TelegramTestEnvironment: cfg.Telegram.TestEnvironment,
			CORSOrigins: cfg.Server.CORSOrigins, MaxBodyBytes: cfg.Server.MaxBodyBytes,
			MaxUploadBytes: cfg.Server.MaxUploadBytes, MaxUploads: cfg.Server.MaxUploads,
			Playground: cfg.Server.Playground, PlaygroundHeadersFromLink: cfg.Store.LocalEngine(), LoaderWait: cfg.GraphQL.LoaderWait,
			Limits: cfg.GraphQL.Limits, MaxDynamoDBCalls: cfg.GraphQL.MaxCalls, InviteLinks: inviteLinks(cfg.Telegram),
			TokenCacheTTL: cfg.Auth.TokenCacheTTL, Quota: cfg.Quota, ClientIPHeader: cfg.Server.ClientIPHeader,
			Live: hub, LiveLimits: cfg.Live.Limits, LiveDone: liveCtx,
			TrustedDocuments: srv.trusted, DisableIntrospection: !cfg.GraphQL.Introspection, DisableSuggestions: !cfg.GraphQL.FieldSuggestions,
			Metrics: m, MetricsElsewhere: cfg.Metrics.Addr != "", GenericMarshal: !cfg.GraphQL.FastMarshal,
			Rates: Rates(cfg.Rates, s, log),
			Bot:   bot, WebhookSecret: cfg.Telegram.WebhookSecret,
			Reminders: reminders(notifier),
			TON:       ton,
			Receipts:  srv.receipts,
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}

	failed := make(chan error, 2)
	go func() {
		log.Info("listening", "addr", api.Addr, "table", cfg.Store.Table, "playground", cfg.Server.Playground, "metrics", cfg.Metrics.On,
			"live_max_connections", cfg.Live.Limits.MaxConnections)
		if err := api.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			failed <- err
		}
	}()
	var metricsSrv *http.Server // the metrics' own listener, when METRICS_ADDR asks for one
	if cfg.Metrics.Addr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", m.Handler())
		metricsSrv = &http.Server{Addr: cfg.Metrics.Addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			log.Info("serving metrics", "addr", cfg.Metrics.Addr)
			if err := metricsSrv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				failed <- fmt.Errorf("metrics listener: %w", err)
			}
		}()
	}
	select {
	case err := <-failed:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight")
	endLive() // live connections end now; the server does not wait for them
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// No scheduled run starts from now; the one in flight may finish within the grace.
	jobsStopped := make(chan error, 1)
	go func() { jobsStopped <- jobs.Stop(shutdownCtx) }()
	defer func() { <-jobsStopped }()
	defer waitStream(shutdownCtx) // endLive stopped the readers: their leases are released meanwhile
	if metricsSrv != nil {
		defer func() { _ = metricsSrv.Shutdown(shutdownCtx) }() // scraped until the API has stopped
	}
	return api.Shutdown(shutdownCtx)
}
